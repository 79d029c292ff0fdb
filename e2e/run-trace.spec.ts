import { expect, test } from "@playwright/test";
import { AuthPages, dashboardApi, seriousAxeViolations, watchForErrors } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

/** This spec's own names: the suite shares one database. */
const stamp = Date.now().toString(36);
const tracer = `tracer-${stamp}`;
const guardKey = `tracer-guard-${stamp}`;
const waiter = `waiter-${stamp}`;

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await new AuthPages(page).signInOrSetUp(admin.email, admin.password);
  const api = dashboardApi(page);
  // Blocked under /srv/prod, it writes a note instead, and says what happened.
  const created = await api.post("/api/v1/agents", {
    data: {
      name: tracer,
      tools: ["write_file"],
      script: [
        { text: "Writing the config.", toolCalls: [{ name: "write_file", input: { path: "/srv/prod/app.yml", content: "x" } }] },
        { text: "Done.", ifError: { text: "Refused; writing a note instead.", toolCalls: [{ name: "write_file", input: { path: "note.md", content: "x" } }] } },
        { text: "Wrote note.md for “{{prompt}}”." },
      ],
    },
  });
  expect(created.status()).toBe(201);
  for (const hook of [
    { id: guardKey, event: "tool.pre", scope: `agent:${tracer}`, matcher: "write_file", action: { type: "block", reason: "Not in production", denyIf: "/srv/prod" } },
    { id: `tracer-log-${stamp}`, event: "session.end", scope: `agent:${tracer}`, action: { type: "log", message: "{{response}}" } },
  ])
    expect((await api.post("/api/v1/hooks", { data: hook })).status()).toBe(201);
  // One that waits for a person, to cancel.
  expect((await api.post("/api/v1/agents", { data: { name: waiter, tools: ["write_file"], script: [{ toolCalls: [{ name: "write_file", input: { path: "a.md", content: "x" } }] }, { text: "ok" }] } })).status()).toBe(201);
  expect((await api.post("/api/v1/hooks", { data: { id: `waiter-ask-${stamp}`, event: "tool.pre", scope: `agent:${waiter}`, action: { type: "approve", timeoutMs: 600000, onTimeout: "deny" } } })).status()).toBe(201);
  await page.close();
});

test("the run view: duration, cost (not 'so far' once finished), a waterfall of model calls, tool calls and their hooks, latency per step; then re-run it", async ({ page }, testInfo) => {
  const problems = watchForErrors(page);
  await new AuthPages(page).signIn(admin.email, admin.password);
  await page.goto(`/agents/${tracer}`);
  await page.getByTestId("start-run-form").getByLabel("Start a run").fill("tidy the config");
  await page.getByTestId("start-run").click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const firstRun = page.url().split("/").pop()!;
  // The first paint connects; it has not lost anything to reconnect to.
  await expect(page.getByTestId("live-state")).not.toHaveText("reconnecting…");
  await expect(page.getByTestId("run-status")).toHaveText("completed", { timeout: 20_000 });
  await expect(page.getByTestId("run-cost-label")).toHaveText("cost");
  await expect(page.getByTestId("run-duration")).toHaveText(/\d/);
  // The id to quote in a ticket or the API, with its copy button.
  await expect(page.getByTestId("run-id")).toHaveText(firstRun);
  await expect(page.getByTestId("run-id-copy")).toBeVisible();
  await expect(page.getByTestId("run-response")).toHaveText("Wrote note.md for “tidy the config”.");

  const trace = page.getByTestId("run-waterfall");
  await expect(trace.locator('[data-testid="waterfall-bar"][data-kind="model"]')).toHaveCount(3);
  await expect(trace.locator('[data-testid="waterfall-bar"][data-kind="tool"][data-status="denied"]')).toHaveCount(1);
  await expect(trace.locator('[data-testid="waterfall-bar"][data-kind="tool"][data-status="done"]')).toHaveCount(1);
  // The guard under each write: it blocked the first and let the second through.
  const guardBars = trace.locator('[data-testid="waterfall-bar"][data-kind="hook"]').filter({ hasText: guardKey });
  await expect(guardBars).toHaveCount(2);
  await expect(guardBars.first()).toHaveAttribute("data-status", "blocked");
  await expect(guardBars.last()).toHaveAttribute("data-status", "allow");
  await expect(trace.getByTestId("waterfall-total")).toContainText("3 model calls · 2 tool calls");
  // Each model call's latency on its timeline line; a measured tool call shows its duration, never "0 ms".
  await expect(page.getByTestId("run-timeline").getByTestId("step-latency").first()).toHaveText(/(\d+ ms|<1 ms|\d+\.\d+ s)$/);
  await expect(page.getByTestId("run-timeline").getByTestId("span-duration").first()).not.toHaveText("0 ms");
  await page.screenshot({ path: testInfo.outputPath("run-trace.png"), fullPage: true });
  expect(await seriousAxeViolations(page)).toEqual([]);

  // Re-run: a new run of the same agent with the same prompt, naming the one it re-ran.
  await page.getByTestId("rerun-run").click();
  await expect(page).not.toHaveURL(new RegExp(`/runs/${firstRun}$`));
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("run-origin")).toContainText("re-run");
  await expect(page.getByTestId("rerun-of")).toHaveAttribute("href", `/runs/${firstRun}`);
  await expect(page.getByTestId("run-status")).toHaveText("completed", { timeout: 20_000 });
  await expect(page.getByTestId("run-response")).toHaveText("Wrote note.md for “tidy the config”.");
  expect(problems).toEqual([]);
});

test("an agent's page is about its runs: stats, recent runs with source and duration; settings behind a tab", async ({ page }) => {
  const problems = watchForErrors(page);
  await new AuthPages(page).signIn(admin.email, admin.password);
  await page.goto(`/agents/${tracer}`);
  await expect(page.getByTestId("agent-tab-runs")).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("agent-id")).toHaveText(/^[0-9a-f-]{36}$/);
  await expect(page.getByTestId("agent-id-copy")).toBeVisible();
  await expect(page.getByTestId("agent-form")).toHaveCount(0);
  await expect(page.getByTestId("stat-runs-value")).toHaveText("2");
  await expect(page.getByTestId("stat-completed-value")).toHaveText("2");
  await expect(page.getByTestId("stat-blocked-value")).toHaveText("2");
  const rows = page.getByTestId("agent-recent-runs").getByTestId("recent-run");
  await expect(rows).toHaveCount(2);
  await expect(rows.getByTestId("run-source")).toHaveText(["re-run", "dashboard"]);
  for (const duration of await rows.getByTestId("run-duration").allTextContents()) expect(duration).not.toBe("—");
  // The guard's health beside: it fired on every write and blocked the production ones.
  await expect(page.getByTestId("agent-hook").filter({ hasText: guardKey }).getByTestId("hook-health")).toHaveText("4 fired · 2 blocked");
  expect(await seriousAxeViolations(page)).toEqual([]);
  await rows.first().getByRole("link").first().click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);

  await page.goto(`/agents/${tracer}`);
  await page.getByTestId("agent-tab-settings").click();
  await expect(page).toHaveURL(/\?tab=settings$/);
  await expect(page.getByTestId("agent-form")).toBeVisible();
  await expect(page.getByTestId("agent-recent-runs")).toHaveCount(0);
  expect(problems).toEqual([]);
});

test("a cancelled run says cancelled, not 'Cancel requested'", async ({ page }) => {
  const problems = watchForErrors(page);
  await new AuthPages(page).signIn(admin.email, admin.password);
  await page.goto(`/agents/${waiter}`);
  await page.getByTestId("start-run-form").getByLabel("Start a run").fill("write it");
  await page.getByTestId("start-run").click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("run-status")).toHaveText("waiting approval", { timeout: 20_000 });
  await expect(page.getByTestId("run-cost-label")).toHaveText("cost so far");
  await page.getByTestId("cancel-run").click();
  await expect(page.getByTestId("run-status")).toHaveText("cancelled", { timeout: 20_000 });
  await expect(page.getByTestId("cancel-notice")).toHaveCount(0);
  await expect(page.getByTestId("run-cost-label")).toHaveText("cost");
  // Nothing is left waiting for a person.
  const pending = (await (await page.request.get("/api/v1/approvals?status=pending&limit=200")).json()).items as { agentName: string }[];
  expect(pending.filter((a) => a.agentName === waiter)).toHaveLength(0);
  expect(problems).toEqual([]);
});
