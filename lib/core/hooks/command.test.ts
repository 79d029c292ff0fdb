import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "./command-runner";
import { createHookRuntime } from "./runtime";
import type { RuntimeHook } from "./runtime-types";
import { approvals, event, hook, toolPre } from "./testing/fakes";

const runtime = createHookRuntime({ allowCodeExecution: true, secrets: { get: (n) => (n === "API_TOKEN" ? "tok-abcdef-123" : undefined) } });
const gate = (command: string, extra: Partial<RuntimeHook> = {}) =>
  hook({ id: "cmd", event: "tool.pre", action: { type: "command", command }, ...extra } as never);

describe("command hooks", () => {
  it("gets the context JSON on stdin and the hook variables in its environment", async () => {
    const result = await runtime.dispatch(
      [gate(`printf '%s|%s|%s|%s|' "$HOOK_EVENT" "$AGENT_NAME" "$TOOL_NAME" "$RUN_ID"; cat`, { onFailure: "continue" })],
      toolPre("Write", { file_path: "/tmp/a" }),
    );
    const [hookEvent, agent, tool, run, stdin] = result.ledger[0].stdout!.split("|");
    expect([hookEvent, agent, tool, run]).toEqual(["tool.pre", "price-checker", "Write", "run-1"]);
    expect(JSON.parse(stdin)).toMatchObject({ event: "tool.pre", toolName: "Write", toolInput: { file_path: "/tmp/a" } });
  });

  it("sees a minimal environment: no server secrets, only the secrets it names", async () => {
    process.env.HOOKPLANE_TEST_LEAK = "server-only-value";
    try {
      const rt = createHookRuntime({ allowCodeExecution: true, secrets: { get: () => "tok-abcdef-123" } });
      const named = hook({ id: "n", event: "session.end", action: { type: "command", command: "env", secrets: ["API_TOKEN"] } });
      const result = await rt.dispatch([named], event("session.end", { outcome: "completed" }));
      const stdout = result.ledger[0].stdout!;
      expect(stdout).not.toContain("HOOKPLANE_TEST_LEAK");
      expect(stdout).toContain("PATH=");
      expect(stdout).toContain("API_TOKEN=[REDACTED]");
      expect(stdout).not.toContain("tok-abcdef-123");
    } finally {
      delete process.env.HOOKPLANE_TEST_LEAK;
    }
  });

  it("exit 0 allows, exit 2 blocks with stderr as the reason", async () => {
    expect((await runtime.dispatch([gate("exit 0")], toolPre("x"))).verdict).toBe("allow");
    const blocked = await runtime.dispatch([gate("echo 'use the staging path' >&2; exit 2")], toolPre("x"));
    expect(blocked).toMatchObject({ verdict: "block", reason: "use the staging path" });
    expect(blocked.ledger[0]).toMatchObject({ exitCode: 2, failed: false });
  });

  it("another non-zero exit is a failure that follows onFailure", async () => {
    const closed = await runtime.dispatch([gate("echo nope >&2; exit 3")], toolPre("x"));
    expect(closed).toMatchObject({ verdict: "block", reason: "the command exited with code 3: nope" });
    expect(closed.ledger[0]).toMatchObject({ failed: true, exitCode: 3 });
    const open = await runtime.dispatch([gate("exit 3", { onFailure: "continue" })], toolPre("x"));
    expect(open.verdict).toBe("allow");
  });

  it("a crash (killed by a signal) is a failure", async () => {
    const result = await runtime.dispatch([gate("kill -SEGV $$")], toolPre("x"));
    expect(result).toMatchObject({ verdict: "block", reason: "the command was killed by SIGSEGV" });
  });

  it("a missing binary says which command was not found", async () => {
    const result = await runtime.dispatch([gate("definitely-not-a-binary-xyz --flag")], toolPre("x"));
    expect(result.reason).toBe("command not found: definitely-not-a-binary-xyz");
    expect(result.ledger[0]).toMatchObject({ exitCode: 127, failed: true });
  });

  it("reads Loom's JSON forms from stdout", async () => {
    const stop = await runtime.dispatch([gate(`echo '{"continue": false, "reason": "frozen branch"}'`)], toolPre("x"));
    expect(stop).toMatchObject({ verdict: "block", reason: "frozen branch" });
    const out = await runtime.dispatch([gate(`echo '{"output": "3 files changed"}'`)], toolPre("x"));
    expect(out).toMatchObject({ verdict: "allow", output: "3 files changed" });
    expect(out.reminders).toEqual(["hook cmd output: 3 files changed"]);
    const extra = await runtime.dispatch([gate(`echo '{"additionalContext": "repo is frozen"}'`)], toolPre("x"));
    expect(extra.context).toEqual(["repo is frozen"]);
  });

  it("invalid JSON on stdout is plain output: allowed, noted in the ledger", async () => {
    const result = await runtime.dispatch([gate(`echo '{"continue": false,'`)], toolPre("x"));
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0].reason).toContain("stdout is not valid JSON");
  });

  it("a timeout blocks (Loom, fail closed) and kills the whole process group", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "hooks-pg-"));
    const marker = path.join(dir, "child.pid");
    const start = Date.now();
    const result = await runtime.dispatch([gate(`sleep 30 & echo $! > ${marker}; wait`, { timeoutMs: 300 })], toolPre("x"));
    expect(Date.now() - start).toBeLessThan(5000);
    expect(result).toMatchObject({ verdict: "block", reason: "timed out after 300 ms" });
    expect(result.ledger[0].timedOut).toBe(true);
    const pid = Number((await readFile(marker, "utf8")).trim());
    await new Promise((r) => setTimeout(r, 100));
    expect(isAlive(pid)).toBe(false);
  });

  it("a process ignoring SIGTERM gets SIGKILL a second later", async () => {
    const start = Date.now();
    const result = await runCommand({
      command: "trap '' TERM; while :; do sleep 0.05; done",
      stdin: "",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      timeoutMs: 100,
      maxOutputBytes: 1024,
      killGraceMs: 300,
    });
    expect(result.timedOut).toBe(true);
    expect(Date.now() - start).toBeGreaterThanOrEqual(380);
    expect(Date.now() - start).toBeLessThan(3000);
  });

  it("caps output at the byte limit", async () => {
    const result = await runCommand({
      command: "head -c 3000000 /dev/zero | tr '\\0' a",
      stdin: "",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      timeoutMs: 10_000,
      maxOutputBytes: 1024 * 1024,
    });
    expect(result.stdout.length).toBe(1024 * 1024);
    expect(result.truncated).toBe(true);
  });

  it("stops when the run is cancelled", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await runtime.dispatch([gate("sleep 10", { onFailure: "continue" })], toolPre("x"), { signal: controller.signal });
    expect(result.ledger[0].reason).toContain("aborted");
  });

  it("does not wait for background stragglers after the shell exits", async () => {
    const start = Date.now();
    const result = await runtime.dispatch([gate("sleep 5 & exit 0", { timeoutMs: 4000 })], toolPre("x"));
    expect(result.verdict).toBe("allow");
    expect(Date.now() - start).toBeLessThan(2000);
  });

  it("maps Claude Code's ask to an approval request", async () => {
    const port = approvals({ decision: "deny", decidedBy: "ops", timedOut: false });
    const rt = createHookRuntime({ allowCodeExecution: true, approvals: port });
    const out = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"rm -rf?"}}`;
    const result = await rt.dispatch([gate(`echo '${out}'`)], toolPre("Bash", { command: "rm -rf /" }));
    expect(port.requests[0]).toMatchObject({ hookId: "cmd", toolName: "Bash", message: "rm -rf?" });
    expect(result).toMatchObject({ verdict: "block", reason: "denied by ops" });
  });
});

let hasJq = false;
beforeAll(() => {
  try {
    execFileSync("which", ["jq"]);
    hasJq = true;
  } catch {
    hasJq = false;
  }
});
afterAll(() => {});

describe("jq is on this machine (herdctl's shell hooks use it)", () => {
  it("is installed", () => {
    expect(hasJq).toBe(true);
  });
});

/** Running, not a zombie waiting to be reaped (in a container, PID 1 may never reap it). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}
