/**
 * Ownware Loom's own hook tests, ported case by case (ownware-ai/ownware):
 * packages/loom/tests/unit/hooks/{executor,registry,runtime}.test.ts,
 * packages/cortex/tests/unit/profile-helpers/{hooks,hooks-approve}.test.ts and
 * packages/loom/src/tools/__tests__/hooks.test.ts. Each scenario is written anew: the hooks come
 * from `importConfig("loom", agent.json)` (so they carry Loom's runtime contract) and run through
 * `createHookRuntime().dispatch`. Titles cite `<file> › <Loom test name>`; where Hookplane
 * deliberately differs, the test asserts the difference docs/dialect-semantics.md explains.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DialectParseError, importConfig } from "@/lib/core/dialects";
import { createHookRuntime } from "../runtime";
import type { HookRuntimeOptions, RuntimeHook } from "../runtime-types";
import { hookSpecSchema } from "../spec";
import { approvals, closedPort, event, hook, json, startServer, toolPre, type LocalServer } from "../testing/fakes";

const servers: LocalServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const runtime = (extra: HookRuntimeOptions = {}) => createHookRuntime({ allowCodeExecution: true, outbound: { allowPrivateHosts: ["127.0.0.1", "localhost"] }, ...extra });

/** A Loom profile `shop` with these hook buckets → the hooks Hookplane runs. */
function loomHooks(hooks: Record<string, unknown[]>, extra: Record<string, unknown> = {}): RuntimeHook[] {
  const imported = importConfig("loom", JSON.stringify({ name: "shop", hooks, ...extra }));
  return imported.hooks.map((h) => hookSpecSchema.parse(h));
}
const onToolCall = (...actions: unknown[]) => loomHooks({ onToolCall: actions });
const at = (type: Parameters<typeof event>[0], data: Record<string, unknown> = {}, extra = {}) => event(type, data, { agentName: "shop", ...extra });
const call = (tool = "shell", input: Record<string, unknown> = {}) => toolPre(tool, input, { agentName: "shop" });
function loadError(hooks: Record<string, unknown[]>): string[] {
  try {
    loomHooks(hooks);
  } catch (error) {
    if (error instanceof DialectParseError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

describe("Loom packages/loom/tests/unit/hooks/executor.test.ts (command)", () => {
  const rt = runtime();

  it("executor › treats exit 0 with non-JSON stdout as success with output (a note for the model's next turn)", async () => {
    const result = await rt.dispatch(onToolCall({ action: "command", command: "echo hello from hook" }), call());
    expect(result).toMatchObject({ verdict: "allow", output: "hello from hook", reminders: ["hook on-tool-call-1 output: hello from hook"] });
    expect(result.ledger[0].output).toBe("hello from hook");
  });

  it("executor › parses JSON stdout as a HookResult", async () => {
    const result = await rt.dispatch(onToolCall({ action: "command", command: `echo '{"continue": false, "reason": "policy says no"}'` }), call());
    expect(result).toMatchObject({ verdict: "block", reason: "policy says no", blockedBy: "on-tool-call-1" });
  });

  it("executor › treats non-zero exit as a block, with stderr as the reason", async () => {
    const result = await rt.dispatch(onToolCall({ action: "command", command: "echo 'nope nope' >&2; exit 3" }), call());
    expect(result).toMatchObject({ verdict: "block", reason: "nope nope" });
  });

  it('executor › falls back to "exited with code" when stderr is empty', async () => {
    const result = await rt.dispatch(onToolCall({ action: "command", command: "exit 4" }), call());
    expect(result).toMatchObject({ verdict: "block", reason: "Hook exited with code 4" });
  });

  it("executor › honors timeoutMs and converts to a block (default 5 s)", async () => {
    const [imported] = onToolCall({ action: "command", command: "sleep 10" });
    expect(imported.timeoutMs).toBe(5000);
    const result = await rt.dispatch([{ ...imported, timeoutMs: 150 }], call());
    expect(result).toMatchObject({ verdict: "block", reason: "timed out after 150 ms" });
    expect(result.ledger[0].timedOut).toBe(true);
  });

  it("executor › does not raise an unhandled EPIPE when the command ignores stdin", async () => {
    const big = "x".repeat(512 * 1024);
    const result = await rt.dispatch(onToolCall({ action: "command", command: "true" }), call("write_file", { content: big }));
    expect(result.verdict).toBe("allow");
  });
});

describe("Loom packages/loom/tests/unit/hooks/registry.test.ts and runtime.test.ts", () => {
  const rt = runtime();

  it("registry › stores hooks by event in registration order", async () => {
    const hooks = onToolCall({ action: "command", command: "echo first" }, { action: "command", command: "echo second" });
    const result = await rt.dispatch(hooks, call());
    expect(result.ledger.map((e) => e.stdout)).toEqual(["first\n", "second\n"]);
  });

  it("registry › keeps event bindings isolated / returns an empty array for unbound events", async () => {
    const hooks = loomHooks({ onToolCall: [{ action: "log" }], onToolEnd: [{ action: "log" }] });
    const pre = await rt.dispatch(hooks, call());
    expect(pre.ledger.map((e) => e.event)).toEqual(["tool.pre"]);
    expect(await rt.dispatch(hooks, at("model.pre", { turn: 1, messageCount: 1 }))).toMatchObject({ verdict: "allow", ledger: [] });
  });

  it("runtime › returns continue:true when no hooks are bound", async () => {
    expect(await rt.dispatch([], call())).toMatchObject({ verdict: "allow", reminders: [] });
  });

  it("runtime › blocks the chain when a hook returns continue:false, and emits hook.blocked to the model", async () => {
    const hooks = onToolCall({ action: "command", command: `echo '{"continue": false, "reason": "stop"}'` }, { action: "command", command: "echo never" });
    const result = await rt.dispatch(hooks, call());
    expect(result.reminders).toEqual(["hook on-tool-call-1 blocked shell: stop"]);
    expect(result.ledger[1]).toMatchObject({ matched: false, reason: "not run: hook on-tool-call-1 blocked" });
  });

  it("runtime › emits hook.success when output is provided; hook.context only when additionalContext is non-empty", async () => {
    const hooks = onToolCall(
      { action: "command", command: `echo '{"output": "lint ok", "additionalContext": "   "}'` },
      { action: "command", command: `echo '{"additionalContext": "branch is main"}'` },
    );
    expect((await rt.dispatch(hooks, call())).reminders).toEqual(["hook on-tool-call-1 output: lint ok", "branch is main"]);
  });

  it("runtime › omitting continue means allow", async () => {
    expect((await rt.dispatch(onToolCall({ action: "command", command: `echo '{"reason": "just saying"}'` }), call())).verdict).toBe("allow");
  });
});

describe("Loom packages/loom/src/tools/__tests__/hooks.test.ts", () => {
  it("hooks › runs global hooks before tool-specific hooks — differs: profile hooks run in the order written", async () => {
    // Loom's `*`-first rule belongs to its code-level tool interceptors (ToolHookRegistry), which
    // agent.json cannot declare; its lifecycle registry (what agent.json compiles into) keeps
    // registration order. Hookplane runs every chain in its written order, `*` or not.
    const specific = hook({ id: "specific", event: "tool.pre", matcher: "shell", action: { type: "log" } });
    const wildcard = hook({ id: "wildcard", event: "tool.pre", matcher: "*", action: { type: "log" } });
    const result = await runtime().dispatch([specific, wildcard], call());
    expect(result.ledger.map((e) => e.hookId)).toEqual(["specific", "wildcard"]);
  });

  it("hooks › stops processing hooks after a block", async () => {
    const block = hook({ id: "guard", event: "tool.pre", action: { type: "block", reason: "no" } });
    const after = hook({ id: "after", event: "tool.pre", action: { type: "log" } });
    expect((await runtime().dispatch([block, after], call())).ledger[1]).toMatchObject({ matched: false });
  });
});

describe("Loom packages/cortex/tests/unit/profile-helpers/hooks.test.ts", () => {
  const rt = runtime();

  it("hooks › maps all seven buckets to their engine events", () => {
    const buckets = ["onStart", "onToolCall", "onToolEnd", "onModelCall", "onModelEnd", "onComplete", "onError"];
    const hooks = loomHooks(Object.fromEntries(buckets.map((b) => [b, [{ action: "log" }]])));
    expect(hooks.map((h) => h.event)).toEqual(["session.start", "tool.pre", "tool.post", "model.pre", "model.post", "session.end", "error"]);
    expect(hooks.every((h) => h.dialect === "loom")).toBe(true);
  });

  it("hooks › runs onModelEnd actions against the metering context (model, turn, stop reason, cost)", async () => {
    const post = at("model.post", { model: "ollama:llama3.2", turn: 2, stopReason: "tool_use", inputTokens: 500, outputTokens: 42, costUsd: 0.0123, toolCallCount: 1 });
    const result = await rt.dispatch(loomHooks({ onModelEnd: [{ action: "log" }] }), post);
    expect(result.ledger[0].reason).toBe("logged: model.post model=ollama:llama3.2 turn=2 stop=tool_use in=500 out=42 cost=$0.0123 tools=1");
  });

  it("hooks › runs onComplete/onError actions against their contexts (end reason; error code and message)", async () => {
    const hooks = loomHooks({ onComplete: [{ action: "log" }], onError: [{ action: "log", level: "error" }] });
    const end = await rt.dispatch(hooks, at("session.end", { outcome: "completed" }, { sessionId: "sess_x" }));
    expect(end.ledger[0].reason).toBe("logged: session.end reason=end_turn session=sess_x");
    const error = await rt.dispatch(hooks, at("error", { code: "UNKNOWN", message: "provider exploded" }));
    expect(error.ledger[0].reason).toBe("logged: error code=UNKNOWN message=provider exploded");
  });

  it("hooks › model.pre carries the model for log lines", async () => {
    const result = await rt.dispatch(loomHooks({ onModelCall: [{ action: "log" }] }), at("model.pre", { model: "openai:gpt-5.5", turn: 1, messageCount: 3 }));
    expect(result.ledger[0].reason).toBe("logged: model.pre model=openai:gpt-5.5 turn=1 messages=3");
  });

  it("hooks › webhook POSTs the payload {v, ts, profile, event, context} and allows", async () => {
    const s = await startServer((_req, res) => json(res, 200, { continue: false, reason: "ignored" }));
    servers.push(s);
    const result = await rt.dispatch(loomHooks({ onToolCall: [{ action: "webhook", url: `http://localhost:${s.port}/hook` }] }), call("shell", { command: "ls" }));
    // The endpoint's answer is never read for a decision: Loom's webhooks notify only.
    expect(result.verdict).toBe("allow");
    const body = JSON.parse(s.requests[0].body);
    expect(body).toMatchObject({ v: 1, ts: expect.any(Number), profile: "shop", event: "tool.pre", context: { toolName: "shell", toolInput: { command: "ls" } } });
  });

  it("hooks › webhook never blocks on HTTP failure (500) or when the endpoint is unreachable", async () => {
    const s = await startServer((_req, res) => json(res, 500, {}));
    servers.push(s);
    for (const url of [`http://localhost:${s.port}/`, `http://localhost:${await closedPort()}/`]) {
      const result = await rt.dispatch(loomHooks({ onToolCall: [{ action: "webhook", url }] }), call());
      expect(result.verdict).toBe("allow");
      expect(result.ledger[0]).toMatchObject({ failed: true, verdict: "allow" });
    }
  });

  it("hooks › rejects a missing url / an unparseable url / http for non-loopback hosts at build time; accepts https", () => {
    expect(loadError({ onToolCall: [{ action: "webhook" }] })).toEqual([expect.stringMatching(/^hooks\.onToolCall\[0\]\.url: /)]);
    expect(loadError({ onToolCall: [{ action: "webhook", url: "not a url" }] })).toEqual(["hooks.onToolCall[0].url: not a valid URL: not a url (Loom refuses the profile)"]);
    expect(loadError({ onToolCall: [{ action: "webhook", url: "http://ops.example.com/x" }] })).toEqual([
      "hooks.onToolCall[0].url: webhook URLs must be https (http only for localhost); got http://ops.example.com/x (Loom refuses the profile)",
    ]);
    expect(loadError({ onToolCall: [{ action: "webhook", url: "https://ops.example.com/x" }] })).toEqual([]);
    expect(loadError({ onToolCall: [{ action: "webhook", url: "http://127.0.0.1:9/x" }] })).toEqual([]);
  });

  it("hooks › save_json appends JSONL (inside the agent's workspace — Loom: the profile directory)", async () => {
    const workspace = await mkdtemp(path.join(tmpdir(), "loom-save-"));
    dirs.push(workspace);
    const hooks = loomHooks({ onToolEnd: [{ action: "save_json", path: "logs/events.jsonl" }] });
    for (const tool of ["read_file", "shell"]) {
      await rt.dispatch(hooks, at("tool.post", { toolName: tool, output: "ok", isError: false }, { workspaceDir: workspace }));
    }
    const lines = (await readFile(path.join(workspace, "logs/events.jsonl"), "utf8")).trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.v, l.profile, l.event, l.context.toolName])).toEqual([
      [1, "shop", "tool.post", "read_file"],
      [1, "shop", "tool.post", "shell"],
    ]);
  });

  it("hooks › save_json rejects absolute paths, escapes from the directory and a missing path at build time", () => {
    expect(loadError({ onComplete: [{ action: "save_json", path: "/etc/x.jsonl" }] })).toHaveLength(1);
    expect(loadError({ onComplete: [{ action: "save_json", path: "../x.jsonl" }] })).toHaveLength(1);
    expect(loadError({ onComplete: [{ action: "save_json" }] })).toHaveLength(1);
  });

  it("hooks › command is rejected by default with the opt-in message — differs: imported, refused when it fires (fail closed)", async () => {
    const hooks = onToolCall({ action: "command", command: "echo hi" });
    const result = await createHookRuntime().dispatch(hooks, call());
    expect(result.verdict).toBe("block");
    expect(result.reason).toContain("running code on this server is off");
  });

  it("hooks › rejects an empty command even when opted in", () => {
    expect(loadError({ onToolCall: [{ action: "command", command: "" }] })).toHaveLength(1);
  });

  it("hooks › routes command stdout into the reminder queue (model-visible); a blocking command blocks (exit != 0)", async () => {
    const ok = await rt.dispatch(onToolCall({ action: "command", command: "echo 'tests are green'" }), call());
    expect(ok.reminders).toEqual(["hook on-tool-call-1 output: tests are green"]);
    const blocked = await rt.dispatch(onToolCall({ action: "command", command: "echo 'red build' >&2; exit 1" }), call());
    expect(blocked).toMatchObject({ verdict: "block", reason: "red build" });
  });

  it("hooks › the process environment — differs: only the documented variables and the admin's pass-through list", async () => {
    process.env.LOOM_PORTED_VAR = "server-value";
    try {
      const hooks = onToolCall({ action: "command", command: 'echo "[$LOOM_PORTED_VAR][$TOOL_NAME]"' });
      expect((await rt.dispatch(hooks, call())).output).toBe("[][shell]");
      expect((await runtime({ passEnv: ["LOOM_PORTED_VAR"], environment: process.env }).dispatch(hooks, call())).output).toBe("[server-value][shell]");
    } finally {
      delete process.env.LOOM_PORTED_VAR;
    }
  });
});

describe("Loom packages/cortex/tests/unit/profile-helpers/hooks-approve.test.ts", () => {
  const gate = (tools?: string[]) => onToolCall({ action: "approve", ...(tools ? { tools } : {}) });

  it("hooks-approve › parses and compiles in onToolCall; rejects approve outside onToolCall", () => {
    expect(gate()[0].action).toMatchObject({ type: "approve", timeoutMs: 1_800_000, onTimeout: "deny" });
    expect(loadError({ onToolEnd: [{ action: "approve" }] })).toEqual(["hooks.onToolEnd[0].action: approve is valid only in onToolCall (found in onToolEnd)"]);
  });

  it("hooks-approve › approve → the tool proceeds; the approver sees the real call", async () => {
    const port = approvals({ decision: "approve", decidedBy: "ops", timedOut: false });
    const result = await runtime({ approvals: port }).dispatch(gate(), call("send_email", { to: "a@b.c" }));
    expect(result.verdict).toBe("allow");
    expect(port.requests[0]).toMatchObject({ toolName: "send_email", toolInput: { to: "a@b.c" } });
  });

  it("hooks-approve › deny → the tool is blocked with the decision reason (model-visible)", async () => {
    const port = approvals({ decision: "deny", reason: "not today", timedOut: false });
    const result = await runtime({ approvals: port }).dispatch(gate(), call("send_email"));
    expect(result).toMatchObject({ verdict: "block", reason: expect.stringContaining("not today") });
    expect(result.reminders.join("\n")).toContain("not today");
  });

  it("hooks-approve › only matching tools pause; others pass without consulting the approver", async () => {
    const port = approvals({ decision: "approve", timedOut: false });
    const rt = runtime({ approvals: port });
    await rt.dispatch(gate(["send_*"]), call("read_file"));
    await rt.dispatch(gate(["send_*"]), call("send_sms"));
    expect(port.requests.map((r) => r.toolName)).toEqual(["send_sms"]);
  });

  it("hooks-approve › no approver wired → deny; approver throws → deny, never allow", async () => {
    expect((await runtime().dispatch(gate(), call())).verdict).toBe("block");
    const throwing = { request: () => Promise.reject(new Error("inbox down")) };
    expect((await runtime({ approvals: throwing }).dispatch(gate(), call())).verdict).toBe("block");
  });
});
