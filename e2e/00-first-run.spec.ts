import { expect, test } from "@playwright/test";
import { AgentPages, AuthPages, dashboardApi } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };
const viewer = { email: "viewer@example.com", password: "viewer password 1" };

test.describe.configure({ mode: "serial" });

test("signs up, signs out and in, creates an agent and sees it listed", async ({ page }, testInfo) => {
  const auth = new AuthPages(page);
  const agents = new AgentPages(page);

  await auth.setUpFirstAdmin(admin.email, admin.password);
  // Setup lands on Home; the three demo agents are seeded on first start.
  await agents.open();
  await expect(agents.names()).toHaveText(["coding-agent", "price-checker", "researcher"]);

  await auth.signOut();
  await page.goto("/agents");
  // Sent to sign in, with the page asked for to come back to.
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fagents$/);
  await auth.signIn(admin.email, admin.password, "/agents");

  // Bad input gets a readable error naming the field, and nothing is created.
  await page.getByTestId("new-agent").click();
  await agents.form().getByLabel("Name").fill("bad agent!");
  await agents.form().getByLabel("Max turns").fill("ten");
  await page.getByTestId("save-agent").click();
  await expect(page.getByTestId("form-message")).toContainText("name:");
  await expect(page.getByTestId("error-maxTurns")).toBeVisible();
  await expect(page).toHaveURL(/\/agents\/new$/);

  await agents.form().getByLabel("Name").fill("release-bot");
  await agents.form().getByLabel("Max turns").fill("7");
  await agents.form().getByLabel("Description").fill("Cuts releases");
  await agents.form().getByLabel("shell", { exact: true }).check();
  // Its shell steps may run again after a crash (otherwise at most once).
  await agents.form().getByLabel("Tools safe to retry").fill("shell");
  await page.getByTestId("save-agent").click();
  await expect(page).toHaveURL(/\/agents\/[0-9a-f-]{36}\?saved=1$/);
  await expect(page.getByRole("heading", { name: "release-bot" })).toBeVisible();
  await expect(agents.form().getByLabel("Tools safe to retry")).toHaveValue("shell");

  await agents.open();
  await expect(agents.names()).toHaveText(["coding-agent", "price-checker", "release-bot", "researcher"]);
  await expect(page.getByTestId("agent-row").filter({ hasText: "release-bot" })).toContainText("shell · max 7 turns");
  await page.screenshot({ path: testInfo.outputPath("agents.png"), fullPage: true });
});

test("a viewer sees agents but cannot edit them", async ({ page }, testInfo) => {
  const auth = new AuthPages(page);
  await auth.signIn(admin.email, admin.password);
  await page.getByTestId("nav-settings").click();
  const form = page.getByTestId("create-user-form");
  await form.getByLabel("Email").fill(viewer.email);
  await form.getByLabel("Initial password").fill(viewer.password);
  await form.getByLabel("Role").selectOption("viewer");
  await form.getByTestId("add-user").click();
  await expect(form.getByTestId("form-message")).toContainText(`${viewer.email} is viewer in default`);
  await expect(page.getByTestId("users-table")).toContainText(viewer.email);
  await auth.signOut();

  await auth.signIn(viewer.email, viewer.password);
  await expect(page.getByTestId("current-role")).toHaveText("viewer");
  await new AgentPages(page).open();
  await expect(page.getByTestId("agent-name")).toHaveCount(4);
  await expect(page.getByTestId("new-agent")).toHaveCount(0);

  await page.getByTestId("agent-row").filter({ hasText: "release-bot" }).click();
  await expect(page.getByTestId("read-only-notice")).toBeVisible();
  // An agent's page opens on its runs; its settings are a tab away, read only.
  await page.getByTestId("agent-tab-settings").click();
  await expect(page.getByTestId("agent-name-input")).toBeDisabled();
  await expect(page.getByTestId("save-agent")).toHaveCount(0);
  await expect(page.getByTestId("delete-agent")).toHaveCount(0);

  // Going around the UI does not help: the page and the API both refuse.
  await page.goto("/agents/new");
  await expect(page).toHaveURL(/\/agents$/);
  const response = await dashboardApi(page).post("/api/v1/agents", { data: { name: "sneaky" } });
  expect(response.status()).toBe(403);
  await page.screenshot({ path: testInfo.outputPath("viewer.png"), fullPage: true });
  // The audit's integrity check is an admin's: no tab, no panel, and its API refuses.
  await page.goto("/audit?tab=integrity");
  await expect(page.getByTestId("audit-tab-sessions")).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("audit-tab-integrity")).toHaveCount(0);
  await expect(page.getByTestId("integrity-panel")).toHaveCount(0);
  expect((await page.request.get("/api/v1/audit/verify")).status()).toBe(403);
});
