import { expect, test } from "@playwright/test";
import { AuthPages, dashboardApi, HookPages } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

test("a detector is tried on past sessions in the editor, then enforced on the next call", async ({ page }, testInfo) => {
  await new AuthPages(page).signIn(admin.email, admin.password);
  // Each attempt its own session, folder and hook, so a retry is not counted against what the
  // first attempt left (the replay reads every past session of the project).
  const stamp = `${testInfo.retry}${Date.now().toString(36)}`;
  const target = `~/code-${stamp}`;
  // A developer's Claude Code session, bridged: one benign call and one that deletes their home folder.
  const { token } = await (await dashboardApi(page).post("/api/v1/tokens", { data: { name: `detectors-e2e-${stamp}`, role: "operator" } })).json();
  const bash = (command: string, id: string) =>
    page.request.post("/api/v1/ingest/claude-code", {
      headers: { authorization: `Bearer ${token}`, "x-hookplane-agent": "coding-agent" },
      data: { session_id: `detectors-e2e-${stamp}`, cwd: "/home/dev/project", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: id },
    });
  for (const [command, id] of [["npm test", "e2e-benign"], [`sudo rm -rf ${target}`, "e2e-destroy"]]) {
    const answer = await bash(command, id);
    expect(answer.status()).toBe(200);
    expect(JSON.stringify(await answer.json())).not.toContain("deny");
  }

  const hooks = new HookPages(page);
  await page.goto("/hooks/new");
  await hooks.field("Id").fill(`no-destruction-${stamp}`);
  await hooks.field("Event").selectOption("tool.pre");
  await hooks.field("Matcher").fill("Bash");
  await hooks.field("Action").selectOption("detect");
  // A detector that does not exist is refused under its field, by the API's own schema.
  await hooks.field("Detectors").fill("shell.everything");
  await expect(hooks.fieldError("action-detectors")).toContainText("shell.destructive");
  await hooks.field("Detectors").fill("shell.destructive");
  await expect(hooks.fieldError("action-detectors")).toHaveCount(0);

  // Tried on past sessions before it is saved, across all the project's agents by default: the
  // destructive call, whose agent and person it was, the finding, and a link to the run at the event.
  const panel = page.getByTestId("hook-test-panel");
  await expect(panel.getByTestId("hook-replay-agent")).toHaveValue("");
  await expect(panel.getByTestId("hook-replay-agent").locator("option:checked")).toHaveText("All agents");
  await panel.getByTestId("hook-replay-run").click();
  const across = panel.getByTestId("hook-replay-summary");
  await expect(across).toContainText("would go differently");
  const difference = panel.getByTestId("hook-replay-difference").filter({ hasText: target });
  await expect(difference).toHaveCount(1);
  await expect(difference).toHaveAttribute("data-agent", "coding-agent");
  const runLink = difference.getByTestId("hook-replay-link");
  await expect(runLink).toHaveAttribute("href", /^\/runs\/[0-9a-f-]{36}#event-\d+$/);
  const runHref = (await runLink.getAttribute("href"))!;
  // The same for the one agent picked.
  await panel.getByTestId("hook-replay-agent").selectOption({ label: "coding-agent" });
  await panel.getByTestId("hook-replay-run").click();
  const summary = panel.getByTestId("hook-replay-summary");
  await expect(summary).toContainText("would go differently");
  await expect(summary).toContainText(`Bash · was allow → now block: shell.destructive/recursive-delete-outside-workspace: rm deletes recursively: ${target} is in the home folder`);
  await expect(summary).not.toContainText("npm test");
  await page.screenshot({ path: testInfo.outputPath("detector-replay.png"), fullPage: true });

  await hooks.save();
  await expect(page).toHaveURL(/\/hooks\/[0-9a-f-]{36}$/);
  // Enforced on the next call.
  const denied = await (await bash(`sudo rm -rf ${target}`, "e2e-destroy-again")).json();
  expect(denied.hookSpecificOutput).toMatchObject({ permissionDecision: "deny" });
  expect(denied.hookSpecificOutput.permissionDecisionReason).toContain("shell.destructive/recursive-delete-outside-workspace");

  // The hook's page: an enforcing hook's shadow record is empty and says how to get one.
  const hookPage = page.url();
  const hookApi = hookPage.replace(/.*\/hooks\//, "/api/v1/hooks/");
  await expect(page.getByTestId("hook-shadow-record")).toHaveAttribute("data-state", "empty");
  await expect(page.getByTestId("shadow-empty")).toContainText("set the mode to shadow");
  // In shadow mode it records on live traffic what it would have done, and lets the call through.
  expect((await dashboardApi(page).patch(hookApi, { data: { mode: "shadow" } })).status()).toBe(200);
  const shadowed = await (await bash(`sudo rm -rf ${target}`, "e2e-destroy-shadow")).json();
  expect(JSON.stringify(shadowed)).not.toContain("deny");
  await page.goto(hookPage);
  const record = page.getByTestId("hook-shadow-record");
  await expect(record).toHaveAttribute("data-state", "loaded");
  await expect(record.getByTestId("shadow-would-block")).toHaveText("1");
  const row = record.getByTestId("shadow-row").first();
  await expect(row).toHaveAttribute("data-verdict", "block");
  await expect(row).toContainText("shell.destructive/recursive-delete-outside-workspace");
  await expect(row.getByTestId("shadow-row-link")).toHaveAttribute("href", /^\/runs\/[0-9a-f-]{36}#event-\d+$/);
  await page.screenshot({ path: testInfo.outputPath("detector-shadow-record.png"), fullPage: true });

  // The replay's link opens the run at that event.
  await page.goto(runHref);
  const targeted = page.locator("[data-targeted]");
  await expect(targeted).toBeVisible();
  await expect(targeted).toContainText(`rm -rf ${target}`);
  await dashboardApi(page).delete(hookApi);
});
