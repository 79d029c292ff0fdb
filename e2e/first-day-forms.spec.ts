/**
 * The first day, at a desk and on a phone, in light and dark: forms keep every value and show
 * every problem at its field, the first invalid field is scrolled to and focused, no page scrolls
 * sideways, the menu replaces the sidebar below 768 px, an approval is decided from the keyboard
 * without focusing it first, and pages pass axe (no serious or critical violation). Every section
 * is checked in all four modes; the forms and keys at a desk in light and on a phone in dark.
 * Every test fails on a console error, an uncaught page error or a 5xx answer.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { AuthPages, dashboardApi, pageWidth } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

const MODES = [
  { name: "desktop light", viewport: { width: 1280, height: 800 }, colorScheme: "light" as const, forms: true },
  { name: "desktop dark", viewport: { width: 1280, height: 800 }, colorScheme: "dark" as const, forms: false },
  { name: "phone light", viewport: { width: 390, height: 844 }, colorScheme: "light" as const, forms: false },
  { name: "phone dark", viewport: { width: 390, height: 844 }, colorScheme: "dark" as const, forms: true },
];

/** Console errors, page errors and 5xx answers seen by the page; each test ends by asserting none. */
function watchForFailures(page: Page): string[] {
  const failures: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") failures.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
  page.on("response", (response) => {
    if (response.status() >= 500) failures.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  return failures;
}

async function expectNoSidewaysScroll(page: Page, where: string) {
  const widths = await pageWidth(page);
  expect(widths.scroll, `${where} scrolls sideways (${widths.scroll} > ${widths.client}), past the edge: ${widths.past.join("; ")}`).toBeLessThanOrEqual(widths.client);
}

async function expectNoSeriousAxeViolations(page: Page, where: string) {
  // Next streams a dynamic page's metadata after its body: the title can land after the heading.
  // A page that never gets one still fails here, and then in axe's document-title rule.
  await expect(page, `${where} has a title`).toHaveTitle(/\S/);
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
  expect(serious, `axe on ${where}`).toEqual([]);
}

/** Opens a section through the sidebar, or through the menu button on a phone. */
async function openSection(page: Page, phone: boolean, testId: string) {
  if (phone) {
    await expect(page.getByTestId("sidebar")).toBeHidden();
    await page.getByTestId("menu-button").click();
    await expect(page.getByTestId("sidebar")).toBeVisible();
  }
  await page.getByTestId(testId).click();
  if (phone) await expect(page.getByTestId("sidebar")).toBeHidden();
}

const unique = (label: string) => `${label}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

for (const mode of MODES) {
  const phone = mode.viewport.width < 768;

  test.describe(`first day, ${mode.name}`, () => {
    test.use({ viewport: mode.viewport, colorScheme: mode.colorScheme });

    let failures: string[];
    test.beforeEach(async ({ page }) => {
      failures = watchForFailures(page);
    });
    test.afterEach(async () => {
      expect(failures, "console errors, page errors or 5xx answers").toEqual([]);
    });

    // The forms and keys behave alike in either scheme, so they are tried at a desk in light and
    // on a phone in dark (both widths and both schemes, in the colours axe checks the errors in);
    // every section's width and axe run in all four modes (widths differ by viewport, contrast by scheme).
    if (mode.forms) {
      test("sign-in keeps the email after a refusal and focuses the first invalid field", async ({ page }) => {
        const auth = new AuthPages(page);
        // A fresh server (this spec alone) is set up here; the suite's first spec has done it otherwise.
        await page.goto("/");
        await page.waitForURL(/\/(setup|sign-in)/);
        if (page.url().includes("/setup")) {
          const setup = page.getByTestId("setup-form");
          await setup.getByLabel("Email").fill(admin.email);
          await setup.getByLabel("Password").fill("short");
          await setup.getByTestId("submit").click();
          await expect(setup.getByTestId("error-password")).toContainText("at least 8");
          await expect(setup.getByLabel("Email")).toHaveValue(admin.email);
          await auth.setUpFirstAdmin(admin.email, admin.password);
          await page.context().clearCookies();
        }
        await page.goto("/sign-in");
        const form = page.getByTestId("sign-in-form");
        await form.getByLabel("Email").fill("admin-at-example.com");
        await form.getByLabel("Password").fill("short");
        await form.getByTestId("submit").click();
        // Both problems, each at its field; the first is focused; what was typed stays.
        await expect(form.getByTestId("error-email")).toBeVisible();
        await expect(form.getByTestId("error-password")).toBeVisible();
        await expect(form.getByTestId("form-message")).toContainText("2 fields need a change: email, password");
        await expect(form.getByLabel("Email")).toBeFocused();
        await expect(form.getByLabel("Email")).toHaveAttribute("aria-invalid", "true");
        await expect(form.getByLabel("Email")).toHaveValue("admin-at-example.com");
        await expectNoSidewaysScroll(page, "sign-in");
        await expectNoSeriousAxeViolations(page, "sign-in with errors");
      });

      test("a refused new agent keeps its name and instructions, with every problem at its field", async ({ page }) => {
        await new AuthPages(page).signIn(admin.email, admin.password);
        await openSection(page, phone, "nav-agents");
        await page.getByTestId("new-agent").click();
        await expect(page).toHaveURL(/\/agents\/new$/);
        const form = page.getByTestId("agent-form");
        await form.getByLabel("Name").fill("bad agent!");
        await form.getByLabel("Instructions").fill("Review every pull request twice.");
        await form.getByLabel("Max turns").fill("ten");
        await form.getByLabel("Script (scripted model)").fill('[{"text": "cut off"');
        await page.getByTestId("save-agent").click();

        await expect(form.getByTestId("error-name")).toBeVisible();
        await expect(form.getByTestId("error-maxTurns")).toBeVisible();
        // Bad JSON in the script is one problem among the others, not instead of them.
        await expect(form.getByTestId("error-script")).toContainText("not valid JSON");
        await expect(form.getByTestId("form-problems").getByRole("listitem")).toHaveCount(3);
        await expect(form.getByLabel("Name")).toHaveValue("bad agent!");
        await expect(form.getByLabel("Instructions")).toHaveValue("Review every pull request twice.");
        await expect(form.getByLabel("Max turns")).toHaveValue("ten");
        await expect(form.getByLabel("Name")).toBeFocused();
        await expect(page).toHaveURL(/\/agents\/new$/);
        await expectNoSidewaysScroll(page, "new agent");
        await expectNoSeriousAxeViolations(page, "new agent with errors");
      });

      test("editing an agent with Max turns 0 keeps 0 under the error and the edited instructions", async ({ page }) => {
        await new AuthPages(page).signIn(admin.email, admin.password);
        const name = unique("edit-me");
        const created = await dashboardApi(page).post("/api/v1/agents", { data: { name, maxTurns: 15, instructions: "Old instructions." } });
        expect(created.status()).toBe(201);
        const { id } = (await created.json()) as { id: string };
        await page.goto(`/agents/${id}?tab=settings`);
        const form = page.getByTestId("agent-form");
        await form.getByLabel("Instructions").fill("New instructions, typed with care.");
        await form.getByLabel("Max turns").fill("0");
        await page.getByTestId("save-agent").click();

        await expect(form.getByTestId("error-maxTurns")).toBeVisible();
        await expect(form.getByLabel("Max turns")).toHaveValue("0");
        await expect(form.getByLabel("Max turns")).toBeFocused();
        await expect(form.getByLabel("Instructions")).toHaveValue("New instructions, typed with care.");
        // Nothing was saved.
        const stored = (await (await page.request.get(`/api/v1/agents/${id}`)).json()) as { spec?: { maxTurns?: number }; maxTurns?: number };
        expect(stored.spec?.maxTurns ?? stored.maxTurns).toBe(15);
        await expectNoSidewaysScroll(page, "edit agent");
      });

      test("the hook editor focuses the highlighted field, and approve shows one timeout and one tool filter", async ({ page }) => {
        await new AuthPages(page).signIn(admin.email, admin.password);
        await page.goto("/hooks/new");
        const form = page.getByTestId("hook-form");
        await form.getByLabel("Id", { exact: true }).fill("");
        await page.getByTestId("save-hook").click();
        await expect(form.getByLabel("Id", { exact: true })).toBeFocused();
        await expect(form.getByLabel("Id", { exact: true })).toHaveAttribute("aria-invalid", "true");

        await page.getByTestId("action-type").selectOption("approve");
        await expect(form.getByLabel("Wait for a decision (ms)")).toBeVisible();
        await expect(form.getByLabel("Timeout (ms)", { exact: true })).toHaveCount(0);
        await expect(form.getByLabel("Tools (globs)")).toHaveCount(0);
        await expect(form.getByLabel("Matcher")).toBeVisible();
        await expectNoSidewaysScroll(page, "new hook");
        await expectNoSeriousAxeViolations(page, "new hook");
      });

    }

    test("every section: no sideways scroll, no serious axe violation", async ({ page }) => {
      await new AuthPages(page).signIn(admin.email, admin.password);
      const sections = ["home", "agents", "hooks", "runs", "approvals", "audit", "costs", "schedules", "alerts", "import", "settings"];
      for (const section of sections) {
        await openSection(page, phone, `nav-${section}`);
        await expect(page).toHaveURL(section === "home" ? /\/$/ : new RegExp(`/${section}`));
        await expect(page.locator("main h1").first()).toBeVisible();
        await expectNoSidewaysScroll(page, section);
        await expectNoSeriousAxeViolations(page, section);
        if (section === "costs") {
          // No axis says the same amount twice ("$0.02 $0.02 $0.02" was the bug).
          for (const chart of await page.locator(".recharts-cartesian-axis").all()) {
            const labels = await chart.locator(".recharts-cartesian-axis-tick-value").allTextContents();
            expect(new Set(labels).size, labels.join(" ")).toBe(labels.length);
          }
        }
      }
    });

    if (mode.forms) {
      test("an approval is decided with A without focusing its card, and its tool input is whole", async ({ page }) => {
        await new AuthPages(page).signIn(admin.email, admin.password);
        const agent = unique("approver-agent");
        const longPath = `/srv/releases/${"very-long-directory-name/".repeat(6)}artifact.tar.gz`;
        expect(
          (
            await dashboardApi(page).post("/api/v1/agents", {
              data: { name: agent, tools: ["shell"], script: [{ text: "Shipping.", toolCalls: [{ name: "shell", input: { command: `cp build.tgz ${longPath}` } }] }, { text: "Shipped." }] },
            })
          ).status(),
        ).toBe(201);
        expect(
          (
            await dashboardApi(page).post("/api/v1/hooks", {
              data: { id: unique("ask"), event: "tool.pre", scope: `agent:${agent}`, matcher: "shell", action: { type: "approve", timeoutMs: 600000, onTimeout: "deny" } },
            })
          ).status(),
        ).toBe(201);
        const run = await dashboardApi(page).post("/api/v1/runs", { data: { agent, prompt: "ship it" } });
        expect(run.status()).toBe(202);

        await page.goto("/approvals");
        const card = page.getByTestId("approval-card").filter({ hasText: agent });
        await expect(card).toHaveCount(1);
        await expect(card.getByTestId("approval-input")).toContainText("artifact.tar.gz");
        // The input wraps inside the card: nothing of it is cut off or scrolled sideways.
        const input = await card.getByTestId("approval-input").evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
        expect(input.scroll).toBeLessThanOrEqual(input.client);
        const approveBox = await card.getByTestId("approve").boundingBox();
        const denyBox = await card.getByTestId("deny").boundingBox();
        expect(approveBox!.x + approveBox!.width).toBeLessThanOrEqual(mode.viewport.width);
        expect(denyBox!.x + denyBox!.width).toBeLessThanOrEqual(mode.viewport.width);
        await expectNoSidewaysScroll(page, "approvals");
        await expectNoSeriousAxeViolations(page, "approvals with a card");

        // Only this spec's card may be waiting first; older waiting cards (other specs) are decided by it too.
        const first = page.getByTestId("approval-card").first();
        await expect(first).toHaveAttribute("data-decidable", "true");
        const firstId = await first.getAttribute("id");
        await page.locator("main h1").first().click();
        await page.keyboard.press("a");
        await expect(page.locator(`#${firstId}`)).toHaveCount(0);
        // Decide our own card too if it was not the first.
        if ((await card.count()) > 0) {
          await card.getByTestId("approve").click();
          await expect(card).toHaveCount(0);
        }
      });

      test("not-found pages answer 404; the favicon is there", async ({ page }) => {
        await new AuthPages(page).signIn(admin.email, admin.password);
        const missingHook = await page.goto("/hooks/00000000-0000-4000-8000-000000000000");
        expect(missingHook?.status()).toBe(404);
        await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
        const badId = await page.goto("/hooks/not-a-uuid");
        expect(badId?.status()).toBe(404);
        await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
        const missingPage = await page.goto("/no-such-page");
        expect(missingPage?.status()).toBe(404);
        // Every record page, not only hooks: none is behind a skeleton that would start the answer with 200.
        for (const path of ["/agents", "/runs", "/alerts"]) {
          const missing = await page.goto(`${path}/00000000-0000-4000-8000-000000000000`);
          expect(missing?.status(), path).toBe(404);
          await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
        }
        // Chromium logs each 404 document it loads ("Failed to load resource"): asked for here, not a failure.
        const expected = failures.filter((f) => /status of 404/.test(f));
        expect(expected).toHaveLength(6);
        failures.splice(0, failures.length, ...failures.filter((f) => !/status of 404/.test(f)));
        expect((await page.request.get("/favicon.ico")).status()).toBe(200);
        expect((await page.request.get("/favicon.svg")).status()).toBe(200);
        await expectNoSidewaysScroll(page, "not found");
      });

      test("a new API token is shown once with a copy button; export warnings and cut-off JSON are said", async ({ page }) => {
        await new AuthPages(page).signIn(admin.email, admin.password);
        await page.goto("/settings");
        const tokenForm = page.getByTestId("create-token-form");
        await tokenForm.getByLabel("Token name").fill(unique("ci"));
        await tokenForm.getByRole("button", { name: "Create token" }).click();
        await expect(tokenForm.getByTestId("new-token")).toHaveText(/^hp_/);
        await expect(tokenForm.getByTestId("new-token-copy")).toBeVisible();
        await expect(tokenForm.getByLabel("Token name")).toHaveValue("");
        await expectNoSidewaysScroll(page, "settings with a new token");

        await page.goto("/import");
        const settings = JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard" }] }] } }, null, 2);
        await page.getByTestId("import-content").fill(settings.slice(0, 60));
        await expect(page.getByText(/JSON ends early at line \d+/)).toBeVisible();

        await page.getByTestId("export-dialect").selectOption("claude-code");
        await page.getByTestId("export-agent").selectOption("coding-agent");
        const download = page.waitForEvent("download");
        await page.getByTestId("export-download").click();
        expect((await download).suggestedFilename()).toMatch(/\.json$/);
        await expect(page.getByTestId("export-result")).toContainText("Saved");
        // Every warning the API reports for this export is listed on the page.
        const api = await page.request.get("/api/v1/config/export?dialect=claude-code&agent=coding-agent");
        const count = Number(api.headers()["x-hookplane-warning-count"]);
        if (count > 0) await expect(page.getByTestId("export-warnings").getByRole("listitem")).toHaveCount(count);
        else await expect(page.getByTestId("export-result")).toContainText("everything was expressed in claude-code");
        await expectNoSidewaysScroll(page, "import");
      });
    }
  });
}
