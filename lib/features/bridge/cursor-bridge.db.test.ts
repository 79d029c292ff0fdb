/**
 * The Cursor bridge, from Cursor's published hooks reference (Cursor does not run here: see
 * test/fixtures/bridges/cursor/SOURCE.md): a session's payloads through the ingest endpoint, its
 * answers, and `hookplane hook cursor` refusing in JSON when Hookplane cannot answer; Cursor 2's
 * catch-all tool hooks and subagents; and Cursor's payload from the hooks of .claude/settings.json
 * at Claude Code's ingest and through `hookplane hook claude-code`.
 */
import path from "node:path";
import { expect, test } from "vitest";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRunByExternalSession } from "@/db/queries/runs";
import { closedPort, recordedPayloads, noRmHook, TESTS_FIRST_HOOK, useBridgeHarness } from "@/test/bridge-harness";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import * as cursorRoute from "@/app/api/v1/ingest/cursor/route";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import { callRoute } from "@/test/api-client";

const FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/bridges/cursor");
type Payload = Record<string, unknown> & { conversation_id: string; hook_event_name: string };
const payloads = () => recordedPayloads<Payload>(FIXTURES, "session");
/** A Cursor 2 session built from its reference: the catch-all tool hooks and a subagent. */
const tools2 = () => recordedPayloads<Payload>(FIXTURES, "tools-2");

const h = useBridgeHarness({
  ingest: { method: "POST", path: "/api/v1/ingest/cursor", handler: cursorRoute.POST },
  // Cursor also runs the hooks of .claude/settings*.json: their bridge posts Cursor's payload here.
  routes: [{ method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST }],
  agents: {
    plain: [],
    gates: [
      noRmHook("Shell"),
      { id: "no-env", event: "tool.pre", matcher: "Read", when: "toolInput.file_path: /\\.env$/", action: { type: "block", reason: "Secrets stay unread" } },
      { id: "ask-mcp", event: "tool.pre", matcher: "github_search", action: { type: "approve", timeoutMs: 60_000, onTimeout: "deny" } },
      TESTS_FIRST_HOOK,
      { id: "no-prod-writes", event: "tool.pre", matcher: "Write", when: "toolInput.file_path: /\\/prod\\//", action: { type: "block", reason: "Nothing writes to prod/" } },
      { id: "no-shell-subagents", event: "agent.start", when: "agentName: /^shell$/", action: { type: "block", reason: "No shell subagents" } },
      { id: "explore-twice", event: "agent.stop", when: "stopHookActive: false", action: { type: "block", reason: "Check the tests folder too." } },
    ],
    context: [
      { id: "ctx-start", event: "session.start", action: { type: "context", text: "This repository deploys on Fridays only." } },
      { id: "ctx-post", event: "tool.post", matcher: "Shell", action: { type: "context", text: "Shell output may hold secrets." } },
    ],
  },
});
const send = (agent: string, payload: Payload) => h.send(agent, payload);

test("a conversation is a run with source cursor; shell, read, MCP and edits as tool events, every field kept", async () => {
  const list = payloads();
  for (const p of list) expect((await send("plain", p)).body).toEqual({});
  const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.plain, externalSessionId: list[0].conversation_id }))!;
  expect(run).toMatchObject({ source: "cursor", status: "running", toolsUsed: ["Shell", "Read", "github_search"] });
  const events = await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 });
  expect(events.map((e) => [e.type, e.data.toolName ?? null])).toEqual([
    ["user.prompt.submit", null],
    ["tool.pre", "Shell"],
    ["tool.post", "Shell"],
    ["tool.pre", "Read"],
    ["tool.pre", "github_search"],
    ["tool.post", "Edit"],
    ["turn.end", null],
  ]);
  expect(events[1].data).toMatchObject({ toolInput: { command: "ls -la", cwd: "/home/dev/project" }, cwd: "/home/dev/project" });
  expect(events[3].data.cursor).toMatchObject({ content: "# Project\n", generation_id: "g-0001", cursor_version: "1.7.0" });
  expect(events[4].data).toMatchObject({ toolInput: { query: "hooks" }, cursor: { url: "https://mcp.example.com/sse" } });
});

test("answers in Cursor's shape: permission deny with messages, an approval as allow, stop's followup", async () => {
  const list = payloads().map((p) => ({ ...p, conversation_id: "cursor-gates" }));
  const at = (event: string) => list.find((p) => p.hook_event_name === event)!;
  expect((await send("gates", { ...at("beforeShellExecution"), command: "rm -rf /" })).body).toEqual({ permission: "deny", user_message: "No rm -rf here", agent_message: "No rm -rf here" });
  expect((await send("gates", { ...at("beforeReadFile"), file_path: "/home/dev/project/.env" })).body).toMatchObject({ permission: "deny" });
  expect((await send("gates", at("beforeReadFile"))).body).toEqual({});
  const asking = send("gates", at("beforeMCPExecution"));
  const approval = await h.pendingApproval((a) => a.toolName === "github_search", { timeout: 15_000, limit: 20 });
  await h.decide(approval.id, { decision: "approve" });
  expect((await asking).body).toEqual({ permission: "allow" });
  expect((await send("gates", at("stop"))).body).toEqual({ followup_message: "Run the tests before you stop." });
  expect((await send("gates", { ...at("stop"), loop_count: 1 })).body).toEqual({});
  const bad = await send("gates", { ...at("beforeShellExecution"), command: undefined } as never);
  expect(bad.status).toBe(422);
  expect(bad.body.error.issues[0].path).toBe("command");
});

test("no answer: the gate refuses in JSON, stop goes on", async () => {
  const env = { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}`, HOOKPLANE_TOKEN: h.operator };
  const list = payloads();
  const shell = await runHookplaneCli(["hook", "cursor", "--agent", "plain"], list[1], env);
  expect(shell.code).toBe(0);
  expect(shell.json()).toEqual({ permission: "deny", user_message: expect.stringMatching(/ECONNREFUSED — blocking/), agent_message: expect.stringMatching(/ECONNREFUSED/) });
  const prompt = await runHookplaneCli(["hook", "cursor", "--agent", "plain"], list[0], env);
  expect(prompt.json()).toMatchObject({ continue: false });
  const stop = await runHookplaneCli(["hook", "cursor", "--agent", "plain"], list[6], env);
  expect([stop.code, stop.stdout]).toEqual([0, ""]);
  expect(stop.stderr).toMatch(/not blocking stop: exit 2 there would keep Cursor working/);
});

test("Cursor 2's catch-all preToolUse gates every tool, a file write before it happens; postToolUse(Failure) and a subagent are recorded as the call's", async () => {
  const list = tools2();
  for (const p of list) expect((await send("plain", p)).status).toBe(200);
  const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.plain, externalSessionId: list[0].conversation_id }))!;
  expect(run).toMatchObject({ source: "cursor", status: "finished", outcome: "completed", reason: "completed", toolsUsed: ["Shell", "Write"] });
  const events = await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 });
  expect(events.map((e) => [e.type, e.data.toolName ?? e.data.agentName ?? null])).toEqual([
    ["session.start", null],
    ["user.prompt.submit", null],
    ["tool.pre", "Shell"],
    ["tool.post", "Shell"],
    ["tool.pre", "Write"],
    ["tool.post", "Write"],
    ["agent.start", "explore"],
    ["agent.stop", "explore"],
    ["turn.end", null],
    ["session.end", null],
  ]);
  expect(events[2].data).toMatchObject({ toolCallId: "toolu_01", toolInput: { command: "npm test" }, cursor: { agent_message: "Running the tests" } });
  expect(events[3].data).toMatchObject({ toolCallId: "toolu_01", output: { exitCode: 0, stdout: "12 passed" }, isError: false, durationMs: 5432 });
  expect(events[5].data).toMatchObject({ toolCallId: "toolu_02", isError: true, error: "EACCES: permission denied", cursor: { failure_type: "error" } });
  expect(events[6].data).toMatchObject({ agentId: "sa-7", agentType: "explore", cursor: { task: "Find where routes are registered" } });
  expect(events[7].data).toMatchObject({ response: "Routes live in src/routes.ts", stopHookActive: false });

  // The gates: a write to prod/ is refused before it happens, the same write elsewhere is not; rm -rf through the catch-all too.
  const gated = list.map((p) => ({ ...p, conversation_id: "cursor2-gates" }));
  const [write] = gated.filter((p) => p.hook_event_name === "preToolUse" && (p as Record<string, unknown>).tool_name === "Write");
  expect((await send("gates", { ...write, tool_input: { file_path: "/home/dev/project/prod/config.ts", contents: "x" } })).body).toEqual({
    permission: "deny",
    user_message: "Nothing writes to prod/",
    agent_message: "Nothing writes to prod/",
  });
  expect((await send("gates", write)).body).toEqual({});
  const [shell] = gated.filter((p) => p.hook_event_name === "preToolUse" && (p as Record<string, unknown>).tool_name === "Shell");
  expect((await send("gates", { ...shell, tool_input: { command: "rm -rf /" } })).body).toMatchObject({ permission: "deny", agent_message: "No rm -rf here" });
  const start = gated.find((p) => p.hook_event_name === "subagentStart")!;
  expect((await send("gates", { ...start, subagent_type: "shell" })).body).toMatchObject({ permission: "deny", user_message: "No shell subagents" });
  expect((await send("gates", start)).body).toEqual({});
  const stop = gated.find((p) => p.hook_event_name === "subagentStop")!;
  expect((await send("gates", stop)).body).toEqual({ followup_message: "Check the tests folder too." });
  expect((await send("gates", { ...stop, loop_count: 1 })).body).toEqual({});
  const gates = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.gates, externalSessionId: "cursor2-gates" }))!;
  const denied = (await listRunEventsAfter(h.t.db, { runId: gates.id, after: 0, limit: 100 })).filter((e) => e.type === "loop.tool_denied");
  expect(denied.map((e) => [e.data.toolCallId, e.data.reason])).toEqual([
    ["toolu_02", "Nothing writes to prod/"],
    ["toolu_01", "No rm -rf here"],
  ]);

  // Wrong side: a catch-all event without its tool is refused at the field.
  const bad = await send("gates", { ...shell, tool_name: undefined } as never);
  expect(bad.status).toBe(422);
  expect(bad.body.error.issues[0].path).toBe("tool_name");
});

test("context hooks answer additional_context on sessionStart and postToolUse; with Hookplane down preToolUse and subagentStart refuse in JSON", async () => {
  const list = tools2().map((p) => ({ ...p, conversation_id: "cursor2-context" }));
  const answers = await Promise.all(list.map(async (p) => [p.hook_event_name, (await send("context", p)).body] as const));
  expect(answers.filter(([, body]) => Object.keys(body).length > 0)).toEqual([
    ["sessionStart", { additional_context: "This repository deploys on Fridays only." }],
    ["postToolUse", { additional_context: "Shell output may hold secrets." }],
  ]);
  const env = { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}`, HOOKPLANE_TOKEN: h.operator };
  for (const event of ["preToolUse", "subagentStart"]) {
    const out = await runHookplaneCli(["hook", "cursor", "--agent", "plain"], list.find((p) => p.hook_event_name === event)!, env);
    expect(out.code).toBe(0);
    expect(out.json()).toMatchObject({ permission: "deny", agent_message: expect.stringMatching(/ECONNREFUSED — blocking/) });
  }
  const stop = await runHookplaneCli(["hook", "cursor", "--agent", "plain"], list.find((p) => p.hook_event_name === "subagentStop")!, env);
  expect([stop.code, stop.stdout]).toEqual([0, ""]);
});

test("Cursor running .claude/settings.json hooks: its payload at Claude Code's ingest is the Cursor session it is, answered in both shapes; the CLI exits 2 on a refusal", async () => {
  const viaClaude = (agent: string, payload: unknown) => callRoute(claudeCodeRoute.POST, { method: "POST", token: h.operator, headers: { "x-hookplane-agent": agent }, body: payload });
  const [, , shell] = tools2().map((p) => ({ ...p, conversation_id: "cursor-claude-settings" }));
  // Cursor's event name, or Claude Code's: the same gate.
  for (const name of ["preToolUse", "PreToolUse"]) {
    const denied = await viaClaude("gates", { ...shell, hook_event_name: name, tool_input: { command: "rm -rf /" } });
    expect(denied.body).toEqual({
      permission: "deny",
      user_message: "No rm -rf here",
      agent_message: "No rm -rf here",
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "No rm -rf here" },
    });
  }
  expect((await viaClaude("gates", shell)).body).toEqual({});
  const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.gates, externalSessionId: "cursor-claude-settings" }))!;
  expect(run).toMatchObject({ source: "cursor", blocked: true });
  const [first, second] = (await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 })).filter((e) => e.type === "tool.pre");
  expect(first.data).toMatchObject({ toolName: "Shell", via: "claude-code-settings", cursor: { hook_event_name: "preToolUse" } });
  expect(first.data.cursor).not.toHaveProperty("sent_hook_event_name");
  expect(second.data).toMatchObject({ cursor: { hook_event_name: "preToolUse", sent_hook_event_name: "PreToolUse" } });
  // Claude Code's own payload there is unchanged; one with neither id is refused at session_id.
  const missing = await viaClaude("gates", { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } });
  expect(missing.status).toBe(422);
  expect(missing.body.error.issues[0].path).toBe("session_id");

  // The CLI Cursor runs from .claude/settings.json: a refusal is exit 2 with the reason (a block to either agent), an allow prints {}.
  const cli = (payload: unknown, env = h.cliEnv()) => runHookplaneCli(["hook", "claude-code", "--agent", "gates"], payload, env);
  const refused = await cli({ ...shell, hook_event_name: "PreToolUse", tool_input: { command: "rm -rf /srv" } });
  expect([refused.code, refused.stderr.trim()]).toEqual([2, "No rm -rf here"]);
  const allowed = await cli(shell);
  expect([allowed.code, allowed.json()]).toEqual([0, {}]);
  // Hookplane down: Cursor's gates (named either way) block; its stop does not.
  const down = { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}`, HOOKPLANE_TOKEN: h.operator };
  const closed = await cli({ ...shell, hook_event_name: "PreToolUse" }, down);
  expect(closed.code).toBe(2);
  expect(closed.stderr).toMatch(/ECONNREFUSED — blocking because --fail-open is not set/);
  const stop = await cli({ ...tools2().find((p) => p.hook_event_name === "stop")!, hook_event_name: "Stop" }, down);
  expect(stop.code).toBe(0);
});
