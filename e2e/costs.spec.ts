import { expect, test } from "@playwright/test";
import { AuthPages, CostPages } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

test("a finished run's cost shows on the costs page; the price table says which price a model gets", async ({ page }, testInfo) => {
  await new AuthPages(page).signInOrSetUp(admin.email, admin.password);

  await page.getByTestId("nav-agents").click();
  await page.getByTestId("agent-row").filter({ hasText: "coding-agent" }).click();
  await page.getByTestId("start-run-form").getByLabel("Start a run").fill("Tidy the README");
  await page.getByTestId("start-run").click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = page.url().split("/").pop()!;
  await expect(page.getByTestId("run-status")).toHaveText("completed", { timeout: 20_000 });
  const runCost = (await page.getByTestId("run-cost").textContent())?.trim();
  expect(runCost).toMatch(/^\$0\.\d+$/);

  const costs = new CostPages(page);
  await costs.open();
  await expect(costs.total()).not.toHaveText("$0");
  await expect(costs.topRun(runId)).toBeVisible();
  await expect(costs.topRun(runId).getByTestId("top-run-cost")).toHaveText(runCost!);
  await expect(costs.agentRow("coding-agent")).toBeVisible();
  await expect(page.getByTestId("budget-row").filter({ hasText: "coding-agent" })).toBeVisible();

  // The window is in the URL, so the view can be shared.
  await page.getByTestId("cost-window-7").click();
  await expect(page).toHaveURL(/\?days=7$/);
  await expect(costs.topRun(runId)).toBeVisible();

  const match = await costs.testMatch("scripted");
  await expect(match.pattern).toHaveText("^scripted$");
  await expect(match.cost).not.toHaveText("$0");
  await expect(page.locator('[data-testid="price-row"][data-matched="true"]')).toHaveCount(1);
  await costs.testMatch("nobody:unpriced-model");
  await expect(page.getByTestId("price-no-match")).toBeVisible();

  // A bad pattern is refused by the API and shown on its row; nothing is saved.
  await page.getByTestId("price-add").click();
  const added = page.getByTestId("price-row").last();
  await added.getByTestId("price-pattern").fill("^broken(");
  await added.getByTestId("price-inputUsdPerM").fill("1");
  await added.getByTestId("price-outputUsdPerM").fill("2");
  await expect(added.getByTestId("price-error")).toBeVisible();
  await page.getByTestId("price-save").click();
  await expect(page.getByText(/items\[\d+\]\.modelPattern/)).toBeVisible();

  await page.getByRole("button", { name: "Discard changes" }).click();
  await costs.testMatch("scripted");
  await page.screenshot({ path: testInfo.outputPath("costs.png"), fullPage: true });
  await page.getByTestId("theme-toggle").click();
  await page.screenshot({ path: testInfo.outputPath("costs-dark.png"), fullPage: true });
  await page.getByTestId("theme-toggle").click();
});
