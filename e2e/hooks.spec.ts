import { expect, test } from "@playwright/test";
import { AuthPages, dashboardApi, HookPages } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };


let createdHookId: string | undefined;

// The later specs expect the seeded guard alone on coding-agent: remove ours even when a step failed.
test.afterEach(async ({ page }) => {
  if (createdHookId) await dashboardApi(page).delete(`/api/v1/hooks/${createdHookId}`);
  createdHookId = undefined;
});

test("creates a guard on an agent with inline validation, reorders it, edits it and reads its history", async ({ page }, testInfo) => {
  const hooks = new HookPages(page);
  await new AuthPages(page).signInOrSetUp(admin.email, admin.password);

  // From the agent's page: "Add hook" opens the editor with the agent's scope prefilled.
  await page.getByTestId("nav-agents").click();
  await page.getByTestId("agent-row").filter({ hasText: "coding-agent" }).click();
  await expect(page.getByTestId("agent-hook")).toContainText(["No writes under /srv/prod"]);
  await page.getByTestId("add-agent-hook").click();
  await expect(page).toHaveURL(/\/hooks\/new\?scope=agent%3A[0-9a-f-]{36}$/);
  await expect(hooks.field("Scope").locator("option:checked")).toHaveText("Agent coding-agent");

  await hooks.field("Id").fill("prod-write-guard");
  await hooks.field("Name").fill("Guard production writes");
  await hooks.field("Event").selectOption("tool.pre");
  await hooks.field("Matcher").fill("write_file");
  // The preview runs the real matcher over the agent's tools.
  await expect(page.getByTestId("matcher-hit")).toHaveText([/\bwrite_file$/]);
  await expect(page.getByTestId("matcher-miss")).toHaveCount(3);

  await hooks.field("Action").selectOption("block");
  await hooks.field("Reason").fill("Production is off-limits");
  // A bad regex is reported under its field as it is typed, by the API's own schema.
  await hooks.field("Deny if (regex)").fill("(/srv/prod");
  await expect(hooks.fieldError("action-denyIf")).toContainText("invalid regex");
  await hooks.save();
  await expect(page).toHaveURL(/\/hooks\/new/);
  await hooks.field("Deny if (regex)").fill("/srv/prod");
  await expect(hooks.fieldError("action-denyIf")).toHaveCount(0);
  await hooks.save();

  await expect(page).toHaveURL(/\/hooks\/[0-9a-f-]{36}$/);
  await expect(page.getByText("Hook prod-write-guard created")).toBeVisible();
  await expect(page.getByTestId("hook-version")).toHaveText("version 1");
  const hookUrl = page.url();
  createdHookId = hookUrl.split("/").pop();

  // Listed under its agent, after the seeded guard; moving it up changes the execution order.
  await hooks.open("?event=tool.pre");
  const agentGroup = hooks.group("Agent coding-agent");
  await expect(agentGroup.getByTestId("hook-name")).toHaveText(["No writes under /srv/prod", "Guard production writes"]);
  await expect(hooks.row("prod-write-guard").getByTestId("hook-conditions")).toHaveText("matcher write_file");
  await hooks.row("prod-write-guard").getByRole("button", { name: "Move Guard production writes up" }).click();
  await expect(agentGroup.getByTestId("hook-name")).toHaveText(["Guard production writes", "No writes under /srv/prod"]);
  await expect(page).toHaveURL(/\/hooks\?event=tool\.pre$/);
  await page.screenshot({ path: testInfo.outputPath("hooks.png"), fullPage: true });

  // Edit: a new version, and the history shows what changed.
  await page.goto(hookUrl);
  await hooks.field("Reason").fill("Production is off-limits; write a patch instead");
  await hooks.save();
  await expect(page.getByTestId("form-message")).toHaveText("Saved as version 2");
  await expect(page.getByTestId("hook-version")).toHaveText("version 2");
  await expect(hooks.history().getByTestId("version-item")).toHaveCount(2);
  const diff = page.getByTestId("version-diff");
  await expect(diff.locator('[data-diff="removed"]')).toContainText('"reason": "Production is off-limits"');
  await expect(diff.locator('[data-diff="added"]')).toContainText("write a patch instead");
  await page.screenshot({ path: testInfo.outputPath("hook-editor.png"), fullPage: true });

  // Leave the seeded guard alone in the chain for the specs that run after this one.
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByTestId("delete-hook").click();
  await expect(page).toHaveURL(/\/hooks$/);
  await expect(hooks.row("prod-write-guard")).toHaveCount(0);
});

test("a viewer reads hooks but cannot change them", async ({ page }) => {
  const hooks = new HookPages(page);
  await new AuthPages(page).signIn("viewer@example.com", "viewer password 1");
  await hooks.open();
  await expect(page.getByTestId("new-hook")).toHaveCount(0);
  await expect(hooks.row("no-prod").getByTestId("toggle-enabled")).toHaveCount(0);
  await hooks.row("no-prod").getByTestId("hook-name").click();
  await expect(page.getByTestId("read-only-notice")).toBeVisible();
  await expect(hooks.field("Deny if (regex)")).toBeDisabled();
  await expect(page.getByTestId("save-hook")).toHaveCount(0);
  await expect(page.getByTestId("delete-hook")).toHaveCount(0);
  const response = await dashboardApi(page).patch(`${page.url().replace(/\/hooks\//, "/api/v1/hooks/")}`, { data: { enabled: false } });
  expect(response.status()).toBe(403);
});
