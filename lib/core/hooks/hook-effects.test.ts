/**
 * At most once for hook actions that act outside (`tool`, `command`): the dispatch announces each
 * one before it starts, and a dispatch resumed after a crash records the hook that had started as
 * interrupted (under its onFailure) instead of running it twice; a read-only tool runs again.
 */
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { LedgerEntry } from "./ledger";
import type { ToolPort } from "./ports";
import { createHookRuntime } from "./runtime";
import { INTERRUPTED_HOOK, type HookProgress, type RuntimeHook } from "./runtime-types";
import { hook, toolPre } from "./testing/fakes";

function setup(onFailure: "block" | "continue") {
  const dir = mkdtempSync(path.join(tmpdir(), "hook-effects-"));
  const log = path.join(dir, "ran.log");
  const rows: LedgerEntry[][] = [];
  const runtime = createHookRuntime({ allowCodeExecution: true, ledger: { record: (entries) => void rows.push([...entries]) } });
  const hooks: RuntimeHook[] = [
    hook({ id: "note", event: "tool.pre", action: { type: "context", text: "be careful" } }),
    hook({ id: "deploy", event: "tool.pre", onFailure, action: { type: "command", command: `echo deploy >> ${log}` } }),
    hook({ id: "audit", event: "tool.pre", action: { type: "command", command: `echo audit >> ${log}` } }),
  ];
  const ran = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
  return { runtime, hooks, rows, ran };
}

describe("hook actions: at most once", () => {
  it("announces each outside action before it starts, with the rows before it written first", async () => {
    const { runtime, hooks, rows, ran } = setup("block");
    const points: { point: HookProgress; ranThen: string; rowsThen: string[] }[] = [];
    const result = await runtime.dispatch(hooks, toolPre("shell"), {
      beforeSideEffect: async (point) => void points.push({ point, ranThen: ran(), rowsThen: rows.flat().map((r) => r.hookId) }),
    });
    expect(result.verdict).toBe("allow");
    expect(ran()).toBe("deploy\naudit\n");
    expect(points).toEqual([
      { point: { hookId: "deploy", context: ["be careful"], reminders: ["be careful"] }, ranThen: "", rowsThen: ["note"] },
      { point: { hookId: "audit", context: ["be careful"], reminders: ["be careful"] }, ranThen: "deploy\n", rowsThen: ["note", "deploy"] },
    ]);
    // Each hook has exactly one row.
    expect(rows.flat().map((r) => r.hookId)).toEqual(["note", "deploy", "audit"]);
    expect(result.context).toEqual(["be careful"]);
  });

  it("a hook that could not be announced does not start, and fails under its onFailure", async () => {
    const { runtime, hooks, rows, ran } = setup("block");
    const result = await runtime.dispatch(hooks, toolPre("shell"), {
      beforeSideEffect: async () => {
        throw new Error("database unavailable");
      },
    });
    expect(ran()).toBe("");
    expect(result.verdict).toBe("block");
    const deploy = rows.flat().find((r) => r.hookId === "deploy")!;
    expect(deploy).toMatchObject({ failed: true, verdict: "block" });
    expect(deploy.reason).toContain("database unavailable");
  });

  for (const onFailure of ["block", "continue"] as const) {
    it(`resumed after a crash, the hook that had started is recorded as interrupted (onFailure: ${onFailure}), not run again`, async () => {
      const { runtime, hooks, rows, ran } = setup(onFailure);
      const point: HookProgress = { hookId: "deploy", context: ["be careful"], reminders: ["be careful"] };
      const result = await runtime.dispatch(hooks, toolPre("shell"), { interrupted: point, beforeSideEffect: async () => {} });
      const written = rows.flat();
      // The rows of the hooks before it were written before the crash: not again.
      expect(written.map((r) => r.hookId)).toEqual(["deploy", "audit"]);
      expect(written[0]).toMatchObject({ matched: true, failed: true, verdict: onFailure === "block" ? "block" : "allow" });
      expect(written[0].reason).toBe(onFailure === "block" ? INTERRUPTED_HOOK : `${INTERRUPTED_HOOK} (onFailure: continue)`);
      if (onFailure === "block") {
        expect(result).toMatchObject({ verdict: "block", reason: INTERRUPTED_HOOK, blockedBy: "deploy" });
        expect(ran()).toBe("");
        expect(written[1]).toMatchObject({ matched: false, reason: "not run: hook deploy blocked" });
      } else {
        expect(result.verdict).toBe("allow");
        expect(ran()).toBe("audit\n");
        expect(written[1]).toMatchObject({ matched: true, failed: false, verdict: "allow" });
      }
      // What the hooks before it said for the model is carried over.
      expect(result.context).toEqual(["be careful"]);
    });
  }

  it("a tool action of a tool that is safe to retry runs again; a side-effecting tool does not", async () => {
    const calls: string[] = [];
    const tools: ToolPort = {
      async call(name) {
        calls.push(name);
        return { output: `${name} ok` };
      },
      retrySafe: (name) => name === "read_file",
    };
    const rows: LedgerEntry[] = [];
    const runtime = createHookRuntime({ tools, ledger: { record: (entries) => void rows.push(...entries) } });
    const hooks = [
      hook({ id: "read", event: "session.start", action: { type: "tool", tool: "read_file", args: { path: "notes.md" } } }),
      hook({ id: "post", event: "session.start", action: { type: "tool", tool: "http_request", args: { url: "https://example.com" } } }),
    ];
    const session = { type: "session.start" as const, runId: "r", agentName: "a", ts: 0, data: {} };
    const read = await runtime.dispatch(hooks, session, { interrupted: { hookId: "read" }, beforeSideEffect: async () => {} });
    expect(calls).toEqual(["read_file", "http_request"]);
    expect(read.verdict).toBe("allow");
    expect(rows.map((r) => [r.hookId, r.failed])).toEqual([
      ["read", false],
      ["post", false],
    ]);
    calls.length = 0;
    rows.length = 0;
    const post = await runtime.dispatch(hooks, session, { interrupted: { hookId: "post" }, beforeSideEffect: async () => {} });
    expect(calls).toEqual([]);
    // session.start is a gate and a failed tool action blocks it by default: the run is skipped, not repeated.
    expect(post).toMatchObject({ verdict: "block", reason: INTERRUPTED_HOOK, blockedBy: "post" });
    expect(rows.map((r) => [r.hookId, r.failed, r.reason])).toEqual([["post", true, INTERRUPTED_HOOK]]);
  });
});
