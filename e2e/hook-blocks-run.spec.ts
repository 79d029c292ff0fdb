import { expect, test } from "@playwright/test";
import { AuthPages, dashboardApi, HookPages } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

test("a hook created in the editor blocks a run, live, and the run view says which hook and why", async ({ page }, testInfo) => {
  await new AuthPages(page).signIn(admin.email, admin.password);
  const created = await dashboardApi(page).post("/api/v1/agents", {
    data: {
      name: "cleaner",
      tools: ["shell"],
      script: [
        { text: "Cleaning up.", toolCalls: [{ name: "shell", input: { command: "rm -rf build" } }] },
        { text: "I was told not to delete things; leaving build/ alone." },
      ],
    },
  });
  expect(created.status()).toBe(201);

  // Create the guard through the editor, from the agent's page.
  await page.goto("/agents/cleaner");
  await page.getByTestId("add-agent-hook").click();
  const hooks = new HookPages(page);
  await hooks.field("Id").fill("no-rm");
  await hooks.field("Matcher").fill("shell");
  await hooks.field("Deny if (regex)").fill("rm -rf");
  await hooks.form().getByLabel(/^reason/i).fill("Deleting files needs a person");
  await hooks.save();
  // Leaving before the save answered would abort it: wait for the editor to say it was created.
  await expect(page).toHaveURL(/\/hooks\/[0-9a-f-]{36}$/);
  await expect(page.getByText("Hook no-rm created")).toBeVisible();

  // The effective chain of tool.pre shows it on the agent page.
  await page.goto("/agents/cleaner");
  await expect(page.getByTestId("effective-chain").getByTestId("chain-hooks")).toContainText("no-rm");

  await page.getByTestId("start-run-form").getByLabel("Start a run").fill("clean the build folder");
  await page.getByTestId("start-run").click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const denied = page.getByTestId("run-span").filter({ has: page.locator('[data-status="denied"]') });
  await expect(denied).toContainText("Deleting files needs a person");
  await expect(denied).toContainText("blocked by hook");
  await expect(page.getByTestId("run-status")).toHaveText("completed");
  await expect(page.getByTestId("run-response")).toContainText("leaving build/ alone");
  await denied.getByRole("button").first().click();
  await expect(denied.getByTestId("event-ledger").first()).toContainText("no-rm");
  await page.screenshot({ path: testInfo.outputPath("blocked-live.png"), fullPage: true });
});
