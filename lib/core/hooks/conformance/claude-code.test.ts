/**
 * Claude Code's settings.json hooks, expressed as canonical specs (what the importer produces):
 * `{matcher, hooks: [{type: "command", command, timeout}]}` per event. Claude Code's rules: exit 2
 * blocks with stderr; other non-zero exits do NOT block (so its hooks carry onFailure: continue);
 * stdout JSON `hookSpecificOutput.permissionDecision` allow | deny | ask; timeouts in seconds.
 */
import { describe, expect, it } from "vitest";
import { createHookRuntime } from "../runtime";
import { approvals, event, hook, toolPre } from "../testing/fakes";

/** `{"matcher": m, "hooks": [{"type": "command", "command": c, "timeout": s}]}` on PreToolUse. */
const preToolUse = (matcher: string, command: string, timeoutSeconds = 600) =>
  hook({ id: "cc-pre", event: "tool.pre", matcher, onFailure: "continue", action: { type: "command", command, timeoutMs: timeoutSeconds * 1000 } });

describe("Claude Code conformance", () => {
  const runtime = createHookRuntime({ allowCodeExecution: true, approvals: approvals({ decision: "approve", decidedBy: "dev", timedOut: false }) });

  it("exit 2 blocks and stderr becomes the reason the model reads", async () => {
    const h = preToolUse("Bash", `cmd=$(jq -r .tool_input.command); case "$cmd" in *"rm -rf"*) echo "Destructive command refused" >&2; exit 2;; esac`);
    const result = await runtime.dispatch([h], toolPre("Bash", { command: "rm -rf /tmp/x" }));
    expect(result).toMatchObject({ verdict: "block", reason: "Destructive command refused" });
    expect(result.reminders).toEqual(["hook cc-pre blocked Bash: Destructive command refused"]);
    expect((await runtime.dispatch([h], toolPre("Bash", { command: "ls" }))).verdict).toBe("allow");
  });

  it("exit 1 does not block", async () => {
    const result = await runtime.dispatch([preToolUse("Bash", "echo oops >&2; exit 1")], toolPre("Bash", { command: "ls" }));
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0]).toMatchObject({ failed: true, exitCode: 1, stderr: "oops\n" });
  });

  it("stdin carries Claude Code's field names", async () => {
    const h = preToolUse("*", `jq -c '{e: .hook_event_name, t: .tool_name, s: .session_id}'`);
    const result = await runtime.dispatch([h], toolPre("Write", {}, { sessionId: "sess-9" }));
    expect(JSON.parse(result.ledger[0].stdout!)).toEqual({ e: "PreToolUse", t: "Write", s: "sess-9" });
  });

  it("matcher Edit|Write fires for those tools only", async () => {
    const h = preToolUse("Edit|Write", "echo hit >&2; exit 2");
    expect((await runtime.dispatch([h], toolPre("Write"))).verdict).toBe("block");
    expect((await runtime.dispatch([h], toolPre("Read"))).ledger[0]).toMatchObject({ matched: false, reason: "matcher Edit|Write did not match tool Read" });
  });

  const decision = (d: string, extra = "") =>
    preToolUse("*", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${d}","permissionDecisionReason":"because"${extra}}}'`);

  it("permissionDecision deny blocks with permissionDecisionReason", async () => {
    expect(await runtime.dispatch([decision("deny")], toolPre("Bash"))).toMatchObject({ verdict: "block", reason: "because" });
  });

  it("permissionDecision allow allows, and its additionalContext reaches the model", async () => {
    const result = await runtime.dispatch([decision("allow", `,"additionalContext":"cwd is /repo"`)], toolPre("Bash"));
    expect(result).toMatchObject({ verdict: "allow", context: ["cwd is /repo"] });
  });

  it("permissionDecision ask becomes an approval request", async () => {
    const port = approvals({ decision: "approve", decidedBy: "dev", timedOut: false });
    const rt = createHookRuntime({ allowCodeExecution: true, approvals: port });
    const result = await rt.dispatch([decision("ask")], toolPre("Bash", { command: "git push" }));
    expect(port.requests).toMatchObject([{ toolName: "Bash", toolInput: { command: "git push" }, message: "because" }]);
    expect(result).toMatchObject({ verdict: "allow", approval: { decision: "approve", decidedBy: "dev" } });
  });

  it('decision: "block" on Stop is recorded; session end cannot be blocked', async () => {
    const stop = hook({ id: "cc-stop", event: "session.end", onFailure: "continue", action: { type: "command", command: `echo '{"decision":"block","reason":"tests not run"}'` } });
    const result = await runtime.dispatch([stop], event("session.end", { outcome: "completed" }));
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0]).toMatchObject({ verdict: "block", ignored: true, reason: "tests not run" });
  });

  it("timeout (seconds in Claude Code, ms here) ends the hook without blocking", async () => {
    const result = await runtime.dispatch([{ ...preToolUse("*", "sleep 5"), action: { type: "command", command: "sleep 5", timeoutMs: 200 } }], toolPre("Bash"));
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0]).toMatchObject({ timedOut: true, failed: true });
  });
});
