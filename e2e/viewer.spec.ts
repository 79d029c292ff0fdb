import { expect, test } from "@playwright/test";
import { AuditPages, AuthPages, dashboardApi, CostPages } from "./pages";

// 00-first-run.spec.ts creates this viewer; the specs share one server and run in file order.
const viewer = { email: "viewer@example.com", password: "viewer password 1" };

test("a viewer sees every section and can change nothing", async ({ page }, testInfo) => {
  await new AuthPages(page).signIn(viewer.email, viewer.password);

  // Runs: listed and open, without a cancel button or a start form anywhere.
  await page.getByTestId("nav-runs").click();
  await expect(page.getByTestId("run-row").first()).toBeVisible();
  await page.getByTestId("run-row").first().getByRole("link").first().click();
  await expect(page.getByTestId("run-timeline")).toBeVisible();
  await expect(page.getByTestId("cancel-run")).toHaveCount(0);
  await page.goto("/agents/coding-agent");
  await expect(page.getByTestId("start-run-form")).toHaveCount(0);
  await expect(page.getByTestId("effective-chain")).toContainText("no-prod");

  // Approvals, audit and costs are readable; the price table is read only.
  await page.getByTestId("nav-approvals").click();
  await expect(page.getByRole("heading", { name: "Approvals" })).toBeVisible();
  await expect(page.getByTestId("approve")).toHaveCount(0);
  const audit = new AuditPages(page);
  await audit.open("changes");
  await expect(page.getByTestId("audit-row").first()).toBeVisible();
  await new CostPages(page).open();
  await expect(page.getByTestId("prices-read-only")).toBeVisible();
  await expect(page.getByTestId("price-save")).toHaveCount(0);

  // Settings shows no user, token or secret management to a viewer.
  await page.getByTestId("nav-settings").click();
  await expect(page.getByTestId("users-table")).toHaveCount(0);
  await expect(page.getByTestId("create-token-form")).toHaveCount(0);
  // The instance's page is for instance admins: no tab, and asked for by address, not found.
  await expect(page.getByTestId("settings-tab-instance")).toHaveCount(0);
  // (Settings streams behind its loading skeleton, so the answer has begun before the page says not found.)
  await page.goto("/settings/instance");
  await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
  await expect(page.getByTestId("projects-section")).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath("viewer-settings.png"), fullPage: true });

  // And around the UI, every write is refused by the API.
  const writes = [
    dashboardApi(page).post("/api/v1/runs", { data: { agent: "coding-agent", prompt: "x" } }),
    dashboardApi(page).post("/api/v1/hooks", { data: { id: "x", event: "tool.pre", action: { type: "log" } } }),
    dashboardApi(page).patch("/api/v1/agents/coding-agent", { data: { maxTurns: 2 } }),
    dashboardApi(page).put("/api/v1/prices", { data: { items: [] } }),
    dashboardApi(page).post("/api/v1/tokens", { data: { name: "t", role: "admin" } }),
    dashboardApi(page).post("/api/v1/config/import", { data: { dialect: "hookplane", content: "agents: []" } }),
  ];
  for (const response of await Promise.all(writes)) expect(response.status()).toBe(403);
  // Reading works.
  expect((await page.request.get("/api/v1/runs")).status()).toBe(200);
  expect((await page.request.get("/api/v1/hooks")).status()).toBe(200);
});
