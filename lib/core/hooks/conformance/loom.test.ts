/**
 * Ownware Loom's lifecycle hooks and agent.json actions as canonical specs. Rules: the first
 * `continue: false` wins; non-zero exit blocks; a command timeout BLOCKS (fail closed, default
 * 5 s); session.end is informational; `approve` only on onToolCall with `tools` globs; commands
 * refused unless the operator allows them; a kill switch; the runtime never throws.
 */
import { describe, expect, it } from "vitest";
import { createHookRuntime } from "../runtime";
import { DEFAULT_TIMEOUT_MS } from "../executors";
import { approvals, event, hook, toolPre } from "../testing/fakes";

/** The doc's `no-prod` fn hook: block tool calls whose file_path starts with /srv/prod. */
const noProd = hook({
  id: "no-prod",
  event: "tool.pre",
  action: { type: "block", reason: "Production paths are off-limits in this session.", denyIf: '"file_path":"/srv/prod' },
});
const command = (id: string, cmd: string, extra: Record<string, unknown> = {}) =>
  hook({ id, event: "tool.pre", action: { type: "command", command: cmd, ...extra } as never });

describe("Loom conformance", () => {
  const runtime = createHookRuntime({ allowCodeExecution: true });

  it("no-prod blocks /srv/prod and lets other paths through", async () => {
    expect(await runtime.dispatch([noProd], toolPre("write_file", { file_path: "/srv/prod/app.env" }))).toMatchObject({
      verdict: "block",
      reason: "Production paths are off-limits in this session.",
    });
    expect((await runtime.dispatch([noProd], toolPre("write_file", { file_path: "/home/dev/srv/prod" }))).verdict).toBe("allow");
  });

  it("the first continue:false wins and stops the chain", async () => {
    const first = command("policy-a", `echo '{"continue": false, "reason": "A says no"}'`);
    const second = command("policy-b", `echo '{"continue": false, "reason": "B says no"}'`);
    const result = await runtime.dispatch([first, second], toolPre("shell"));
    expect(result).toMatchObject({ verdict: "block", reason: "A says no", blockedBy: "policy-a" });
    expect(result.ledger[1]).toMatchObject({ matched: false, reason: "not run: hook policy-a blocked" });
  });

  it("non-zero exit blocks with stderr (fail closed)", async () => {
    const result = await runtime.dispatch([command("policy-check", "echo 'not on fridays' >&2; exit 1")], toolPre("shell"));
    expect(result).toMatchObject({ verdict: "block", reason: "the command exited with code 1: not on fridays" });
  });

  it("a command timeout blocks; the default timeout is 5 s", async () => {
    expect(DEFAULT_TIMEOUT_MS.command).toBe(5000);
    const result = await runtime.dispatch([command("slow", "sleep 10", { timeoutMs: 200 })], toolPre("shell"));
    expect(result).toMatchObject({ verdict: "block", reason: "timed out after 200 ms" });
  });

  it("output and additionalContext reach the model as reminders", async () => {
    const result = await runtime.dispatch([command("info", `echo '{"output": "lint ok", "additionalContext": "branch is main"}'`)], toolPre("shell"));
    expect(result.reminders).toEqual(["branch is main", "hook info output: lint ok"]);
  });

  it("model.pre additionalContext lands on this very request", async () => {
    const h = hook({ id: "fresh", event: "model.pre", action: { type: "command", command: `echo '{"additionalContext": "prices updated 09:00"}'` } });
    expect((await runtime.dispatch([h], event("model.pre", { turn: 1 }))).context).toEqual(["prices updated 09:00"]);
  });

  it("continue:false on session.end is informational", async () => {
    const h = hook({ id: "archive", event: "session.end", action: { type: "command", command: `echo '{"continue": false, "reason": "x"}'` } });
    const result = await runtime.dispatch([h], event("session.end", { outcome: "cancelled" }));
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0].ignored).toBe(true);
  });

  it("approve with tools globs asks only for matching tools; unanswered means denied", async () => {
    const port = approvals(undefined);
    const rt = createHookRuntime({ approvals: port });
    const gate = hook({ id: "hitl", event: "tool.pre", action: { type: "approve", tools: ["shell", "write_*"], timeoutMs: 50 } });
    const read = await rt.dispatch([gate], toolPre("read_file"));
    expect(read.ledger[0]).toMatchObject({ matched: false, reason: "tool read_file not in approve tools [shell, write_*]" });
    const write = await rt.dispatch([gate], toolPre("write_file"));
    expect(write).toMatchObject({ verdict: "block", approval: { timedOut: true, decision: "deny" } });
    expect(port.requests.map((r) => r.toolName)).toEqual(["write_file"]);
  });

  it("the default approval timeout is Loom's 30 minutes", () => {
    expect(hook({ id: "a", event: "tool.pre", action: { type: "approve" } }).action).toMatchObject({ timeoutMs: 1_800_000, onTimeout: "deny" });
  });

  it("command hooks are refused unless the operator allows them", async () => {
    const result = await createHookRuntime().dispatch([command("c", "true")], toolPre("shell"));
    expect(result.verdict).toBe("block");
    expect(result.reason).toContain("running code on this server is off");
  });

  it("the kill switch disables all hooks", async () => {
    const rt = createHookRuntime({ killSwitch: () => true });
    expect((await rt.dispatch([noProd], toolPre("write_file", { file_path: "/srv/prod/x" }))).verdict).toBe("allow");
  });

  it("log records a line in the audit trail", async () => {
    const h = hook({ id: "audit", event: "tool.post", action: { type: "log" } });
    const result = await runtime.dispatch([h], event("tool.post", { toolName: "shell", output: "ok" }));
    expect(result.ledger[0].reason).toBe("logged: tool.post shell");
  });
});
