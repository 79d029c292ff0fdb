import { expect, test } from "@playwright/test";
import { AuthPages, dashboardApi, HookPages } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

test("try a hook against a recorded event, then replay a draft over past runs", async ({ page }, testInfo) => {
  await new AuthPages(page).signIn(admin.email, admin.password);
  // A past run of coding-agent, whose no-prod guard blocked a write under /srv/prod.
  const started = await dashboardApi(page).post("/api/v1/runs", { data: { agent: "coding-agent", prompt: "bump replicas" } });
  const { id } = await started.json();
  await expect.poll(async () => (await (await page.request.get(`/api/v1/runs/${id}`)).json()).status, { timeout: 20_000 }).toBe("finished");

  const hooks = new HookPages(page);
  await hooks.open();
  await hooks.row("no-prod").getByTestId("hook-name").click();
  const panel = page.getByTestId("hook-test-panel");
  await expect(panel).toBeVisible();

  // Pick the recorded write to /srv/prod: the hook blocks it.
  const sample = panel.getByTestId("hook-test-sample");
  const prodOption = sample.locator("option", { hasText: "write_file" }).last();
  await sample.selectOption({ label: (await prodOption.textContent())! });
  await expect(panel.getByTestId("hook-test-payload")).toHaveValue(/\/srv\/prod/);
  await panel.getByTestId("hook-test-run").click();
  await expect(panel.getByTestId("hook-test-verdict")).toHaveText("block");
  await expect(panel.getByTestId("hook-test-result")).toContainText("Production paths are off-limits");
  await expect(panel.getByTestId("hook-test-ledger")).toContainText('"matched": true');

  // Edit the event: a path outside production is allowed.
  await panel.getByTestId("hook-test-payload").fill(JSON.stringify({ toolName: "write_file", toolInput: { path: "notes.md" } }));
  await panel.getByTestId("hook-test-run").click();
  await expect(panel.getByTestId("hook-test-verdict")).toHaveText("allow");

  // Replaying the saved hook changes nothing; a draft guarding another path would have let the writes through.
  await panel.getByTestId("hook-replay-run").click();
  await expect(panel.getByTestId("hook-replay-summary")).toContainText("No difference");
  await hooks.field("Deny if (regex)").fill("/etc");
  await panel.getByTestId("hook-replay-run").click();
  await expect(panel.getByTestId("hook-replay-summary")).toContainText("would go differently");
  await expect(panel.getByTestId("hook-replay-summary")).toContainText("was block");
  await expect(panel.getByTestId("hook-replay-summary")).toContainText("now allow");
  await page.screenshot({ path: testInfo.outputPath("hook-test.png"), fullPage: true });
});
