import { expect, test } from "@playwright/test";
import { AuthPages } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

test("start a run from the agent page and watch it live: the guard blocks, the cost adds up", async ({ page }, testInfo) => {
  await new AuthPages(page).signIn(admin.email, admin.password);
  await page.getByTestId("nav-agents").click();
  await page.getByTestId("agent-row").filter({ hasText: "coding-agent" }).click();
  await page.getByTestId("start-run-form").getByLabel("Start a run").fill("Bump the replicas to 3");
  await page.getByTestId("start-run").click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);

  await expect(page.getByTestId("live-state")).toHaveText("live");
  await expect(page.getByTestId("run-status")).toHaveText("completed", { timeout: 20_000 });
  const timeline = page.getByTestId("run-timeline");
  await expect(timeline.locator('[data-type="session.start"]')).toHaveCount(1);
  await expect(timeline.locator('[data-type="session.end"]')).toHaveCount(1);
  // The blocked write is one span: tool.pre, the denial, and the hook that decided.
  const denied = timeline.getByTestId("run-span").filter({ has: page.locator('[data-status="denied"]') });
  await expect(denied).toHaveCount(1);
  await expect(denied).toContainText("Production paths are off-limits");
  await expect(denied).toContainText("blocked by hook");
  await expect(timeline.getByTestId("run-span").filter({ has: page.locator('[data-status="done"]') })).toContainText("app.yml.patch");
  await expect(page.getByTestId("run-cost")).not.toHaveText("$0");
  await expect(page.getByTestId("run-response")).toContainText("app.yml.patch");

  // The ledger under the span says which hook decided and why.
  await denied.getByRole("button").first().click();
  await expect(denied.getByTestId("event-ledger").first()).toContainText("no-prod");
  await expect(denied.getByTestId("event-ledger").first()).toContainText("block");
  await page.screenshot({ path: testInfo.outputPath("run.png"), fullPage: true });

  await page.getByTestId("nav-runs").click();
  await expect(page.getByTestId("run-row").first()).toContainText("coding-agent");
  await expect(page.getByTestId("run-row").first()).toContainText("blocked");
});
