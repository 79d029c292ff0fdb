import { expect, test } from "@playwright/test";
import { AuthPages, dashboardApi, HookPages } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

test("a detector is tried on past sessions in the editor, then enforced on the next call", async ({ page }, testInfo) => {
  await new AuthPages(page).signIn(admin.email, admin.password);
  // A developer's Claude Code session, bridged: one benign call and one that deletes their home folder.
  const { token } = await (await dashboardApi(page).post("/api/v1/tokens", { data: { name: "detectors-e2e", role: "operator" } })).json();
  const bash = (command: string, id: string) =>
    page.request.post("/api/v1/ingest/claude-code", {
      headers: { authorization: `Bearer ${token}`, "x-hookplane-agent": "coding-agent" },
      data: { session_id: "detectors-e2e", cwd: "/home/dev/project", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: id },
    });
  for (const [command, id] of [["npm test", "e2e-benign"], ["sudo rm -rf ~/code", "e2e-destroy"]]) {
    const answer = await bash(command, id);
    expect(answer.status()).toBe(200);
    expect(JSON.stringify(await answer.json())).not.toContain("deny");
  }

  const hooks = new HookPages(page);
  await page.goto("/hooks/new");
  await hooks.field("Id").fill("no-destruction");
  await hooks.field("Event").selectOption("tool.pre");
  await hooks.field("Matcher").fill("Bash");
  await hooks.field("Action").selectOption("detect");
  // A detector that does not exist is refused under its field, by the API's own schema.
  await hooks.field("Detectors").fill("shell.everything");
  await expect(hooks.fieldError("action-detectors")).toContainText("shell.destructive");
  await hooks.field("Detectors").fill("shell.destructive");
  await expect(hooks.fieldError("action-detectors")).toHaveCount(0);

  // Tried on past sessions before it is saved: the destructive call, whose it was, and the finding.
  const panel = page.getByTestId("hook-test-panel");
  await panel.getByTestId("hook-replay-agent").selectOption({ label: "coding-agent" });
  await panel.getByTestId("hook-replay-run").click();
  const summary = panel.getByTestId("hook-replay-summary");
  await expect(summary).toContainText("would go differently");
  await expect(summary).toContainText("Bash · was allow → now block: shell.destructive/recursive-delete-outside-workspace: rm deletes recursively: ~/code is in the home folder");
  await expect(summary).not.toContainText("npm test");
  await page.screenshot({ path: testInfo.outputPath("detector-replay.png"), fullPage: true });

  await hooks.save();
  await expect(page).toHaveURL(/\/hooks\/[0-9a-f-]{36}$/);
  // Enforced on the next call.
  const denied = await (await bash("sudo rm -rf ~/code", "e2e-destroy-again")).json();
  expect(denied.hookSpecificOutput).toMatchObject({ permissionDecision: "deny" });
  expect(denied.hookSpecificOutput.permissionDecisionReason).toContain("shell.destructive/recursive-delete-outside-workspace");
  await dashboardApi(page).delete(page.url().replace(/.*\/hooks\//, "/api/v1/hooks/"));
});
