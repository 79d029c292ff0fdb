/**
 * Agents that speak Claude Code's hook format, under the Claude Code bridge
 * (`hookplane hook claude-code`): docs/bridges/claude-format-agents.md says which were checked how.
 *
 * Qwen Code is the one of them that installs from the npm registry and runs headless against a
 * local model here: its payloads recorded from the real CLI 0.24.4 (test/fixtures/bridges/qwen-code,
 * see SOURCE.md) are replayed through the ingest route, and, when the real `qwen` is installed
 * (HOOKPLANE_QWEN_BIN, or `qwen` on PATH), the CLI itself runs `qwen -p` against a local fake of
 * OpenAI's Chat Completions API with its project's .qwen/settings.json bridging to Hookplane: a
 * blocked `rm -rf`, an approval decided through the API, fail closed with Hookplane down.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRunByExternalSession, listRuns } from "@/db/queries/runs";
import { closedPort, findAgentCli, noRmHook, recordedPayloads, TESTS_FIRST_HOOK, useAgentWorkspace, useBridgeHarness } from "@/test/bridge-harness";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import { FAKE_CHAT_USAGE, startFakeOpenAiChat } from "@/test/bridges/fake-openai-chat";
import { shellGateHooks, shellGateScenarios } from "@/test/bridges/shell-gate-scenarios";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

const FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/bridges/qwen-code");
type Payload = Record<string, unknown> & { session_id: string; hook_event_name: string };
const QWEN = findAgentCli("HOOKPLANE_QWEN_BIN", "qwen");
const SHELL = "run_shell_command";
const DROID = findAgentCli("HOOKPLANE_DROID_BIN", "droid");
const DROID_SHELL = "Execute";

const h = useBridgeHarness({
  ingest: { method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST },
  agents: {
    plain: [],
    // Each agent's hooks name its own tools: a guard on the shell is written for Qwen's
    // run_shell_command and droid's Execute (one agent, as one team's guard would be).
    gates: shellGateHooks(`${SHELL}|${DROID_SHELL}`),
    // VS Code's terminal tool, by its tool name and its reference name.
    vscode: [{ ...noRmHook("run_in_terminal|runInTerminal") }],
    auggie: [noRmHook("launch-process")],
    // A rewritten input (Claude Code's updatedInput with an allow): does the agent run the rewrite?
    rewrite: [{ id: "touch-rewritten", event: "tool.pre", matcher: `${SHELL}|${DROID_SHELL}`, when: "toolInput.command: /^touch /", action: { type: "modify", input: { command: "touch rewritten" } } }],
    guided: [{ id: "prompt-note", event: "user.prompt.submit", action: { type: "context", text: "Mind the house rules." } }, TESTS_FIRST_HOOK],
  },
});

async function eventsOf(agent: string, sessionId: string) {
  const run = await getRunByExternalSession(h.t.db, { agentId: h.agentIds[agent], externalSessionId: sessionId });
  expect(run, sessionId).toBeTruthy();
  return { run: run!, events: await listRunEventsAfter(h.t.db, { runId: run!.id, after: 0, limit: 1000 }) };
}

describe("recorded Qwen Code 0.24.4 sessions through the Claude Code bridge", () => {
  test("a shell session: the tool's run, the turn's end; the empty UserPromptSubmit before the tool result goes back is no second prompt", async () => {
    const payloads = recordedPayloads<Payload>(FIXTURES, "bash-ok");
    for (const p of payloads) expect((await h.send("guided", p)).status, p.hook_event_name).toBe(200);
    const { run, events } = await eventsOf("guided", payloads[0].session_id);
    expect(run).toMatchObject({ source: "claude-code", status: "running", toolsUsed: [SHELL] });
    // Qwen's headless run fires no SessionEnd (only its terminal UI and ACP sessions do).
    expect(events.map((e) => e.type)).toEqual([
      "claude-code.InstructionsLoaded",
      "session.start",
      "notification",
      "user.prompt.submit",
      "tool.pre",
      "tool.post",
      "tool.batch",
      "claude-code.UserPromptSubmit",
      "claude-code.MessageDisplay",
      "turn.end",
    ]);
    expect(events.find((e) => e.type === "user.prompt.submit")!.data).toMatchObject({ prompt: "bash: ls -la", claudeCode: { submitted_prompt: "bash: ls -la" } });
    expect(events.find((e) => e.type === "tool.pre")!.data).toMatchObject({ toolName: SHELL, toolInput: { command: "ls -la" }, toolCallId: expect.stringMatching(/^toolu_/), claudeCode: { tool_call_id: "call_fake_1" } });
    expect(events.find((e) => e.type === "tool.post")!.data).toMatchObject({ isError: false });
  });

  test("PostToolUseFailure is a failed tool.post with Qwen's error text", async () => {
    const payloads = recordedPayloads<Payload>(FIXTURES, "bash-fail");
    for (const p of payloads) expect((await h.send("plain", p)).status).toBe(200);
    const { events } = await eventsOf("plain", payloads[0].session_id);
    expect(events.find((e) => e.type === "tool.post")!.data).toMatchObject({ isError: true, error: expect.stringContaining("Exit Code: 3"), durationMs: expect.any(Number) });
  });

  test("its Stop carries the model calls of Qwen's transcript (usageMetadata) to the run's tokens", async () => {
    const [stop] = recordedPayloads<Payload>(FIXTURES, "bash-ok").filter((p) => p.hook_event_name === "Stop");
    const payload = { ...stop, session_id: "qwen-usage-replay", transcript_path: path.join(FIXTURES, "transcripts", "bash-ok.jsonl") };
    const out = await runHookplaneCli(["hook", "claude-code", "--agent", "plain"], payload, h.cliEnv());
    expect(out.code, out.stderr).toBe(0);
    const { run } = await eventsOf("plain", "qwen-usage-replay");
    // Two model calls at the fake's 800 prompt tokens (100 of them cached: a run counts them in its input too) and 30 out.
    expect(run).toMatchObject({ inputTokens: 1600, outputTokens: 60, cachedTokens: 200 });
  });
});

describe("recorded Factory droid 0.225.2 sessions through the Claude Code bridge", () => {
  const DROID_FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/bridges/droid");

  test("a shell session is one run from SessionStart to SessionEnd; a failed command fires no PostToolUse", async () => {
    const payloads = recordedPayloads<Payload>(DROID_FIXTURES, "bash-ok");
    for (const p of payloads) expect((await h.send("plain", p)).status, p.hook_event_name).toBe(200);
    const { run, events } = await eventsOf("plain", payloads[0].session_id);
    expect(run).toMatchObject({ source: "claude-code", status: "finished", outcome: "completed", toolsUsed: [DROID_SHELL] });
    expect(events.map((e) => e.type)).toEqual(["session.start", "tool.pre", "tool.post", "turn.end", "session.end"]);
    // No tool_use_id in droid's payloads (Hookplane names the call itself); its tool_response is the output as text.
    expect(payloads.some((p) => "tool_use_id" in p)).toBe(false);
    expect(events.find((e) => e.type === "tool.pre")!.data).toMatchObject({ toolName: DROID_SHELL, toolInput: { command: "ls -la" }, toolCallId: expect.any(String) });
    expect(recordedPayloads<Payload>(DROID_FIXTURES, "bash-fail").map((p) => p.hook_event_name)).toEqual(["SessionStart", "PreToolUse", "Stop", "SessionEnd"]);
  });
});

describe("Augment's auggie (payload built from its 0.36.0 bundle: it does not run here without an Augment sign-in)", () => {
  // Its hook input: conversation_id and workspace_roots, no session_id (augment.mjs).
  const auggiePayload = { hook_event_name: "PreToolUse", conversation_id: "auggie-conversation-1", workspace_roots: ["/work/proj"], tool_name: "launch-process", tool_input: { command: "rm -rf build" }, is_mcp_tool: false };

  test("the bridge takes it for Cursor's payload (conversation_id, no session_id): recorded as a Cursor session, and a deny is exit 2, which auggie reads as a block on PreToolUse", async () => {
    const out = await runHookplaneCli(["hook", "claude-code", "--agent", "auggie"], auggiePayload, h.cliEnv());
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("No rm -rf here");
    const { run } = await eventsOf("auggie", "auggie-conversation-1");
    expect(run).toMatchObject({ source: "cursor", blocked: true });
  });
});

describe("VS Code's agent hooks (built from its hooks reference: no VS Code runs here)", () => {
  // Its reference's common fields: hookEventName and sessionId in camelCase, the rest as Claude Code names them.
  const vscodePayload = (fields: Record<string, unknown>) => ({ timestamp: "2026-11-29T10:30:00.000Z", cwd: "/work/proj", sessionId: "vscode-session-1", transcript_path: "/tmp/vscode-transcript.json", ...fields });

  test("its camelCase hookEventName and sessionId reach Hookplane as Claude Code's: rm -rf denied in Claude Code's answer, which VS Code reads", async () => {
    const out = await runHookplaneCli(["hook", "claude-code", "--agent", "vscode"], vscodePayload({ hookEventName: "PreToolUse", tool_name: "run_in_terminal", tool_input: { command: "rm -rf build" }, tool_use_id: "tool-123" }), h.cliEnv());
    expect(out.code, out.stderr).toBe(0);
    expect(out.json()).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "No rm -rf here" } });
    const { run, events } = await eventsOf("vscode", "vscode-session-1");
    expect(run).toMatchObject({ source: "claude-code", blocked: true, toolsUsed: ["run_in_terminal"] });
    expect(events.find((e) => e.type === "tool.pre")!.data).toMatchObject({ toolName: "run_in_terminal", toolCallId: "tool-123", claudeCode: { timestamp: "2026-11-29T10:30:00.000Z" } });
  });

  test("with Hookplane down its PreToolUse is refused (exit 2, which VS Code reads as a block); its Stop is not", async () => {
    const down = { ...h.cliEnv(), HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}` };
    const gate = await runHookplaneCli(["hook", "claude-code", "--agent", "vscode"], vscodePayload({ hookEventName: "PreToolUse", tool_name: "run_in_terminal", tool_input: { command: "ls" } }), down);
    expect(gate.code).toBe(2);
    expect(gate.stderr).toMatch(/Hookplane unreachable/);
    const stop = await runHookplaneCli(["hook", "claude-code", "--agent", "vscode"], vscodePayload({ hookEventName: "Stop", stop_hook_active: false }), down);
    expect(stop.code, stop.stderr).toBe(0);
  });
});

describe.skipIf(!QWEN)(QWEN ? "the real Qwen Code CLI" : "Qwen Code not installed: set HOOKPLANE_QWEN_BIN to its `qwen` (npm i @qwen-code/qwen-code@0.24.4) to run these", () => {
  const workspace = useAgentWorkspace(h, "hp-qwen-e2e-", startFakeOpenAiChat);
  const fake = () => workspace.fake;
  const modelSaw = () => fake().requests.map((r) => JSON.stringify(r.body.messages ?? [])).join("\n");

  /** A project whose .qwen/settings.json bridges `events` to `agent`, and a HOME of its own signed in to the fake. */
  // Without UserPromptSubmit, so that with Hookplane down the tool call itself is what gets refused.
  const TOOL_EVENTS = ["SessionStart", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"];
  function project(name: string, agent = "gates", events = TOOL_EVENTS): string {
    const dir = path.join(workspace.work, name);
    mkdirSync(path.join(dir, ".qwen"), { recursive: true });
    mkdirSync(path.join(dir, "home", ".qwen"), { recursive: true });
    // Qwen reads command hook timeouts in seconds: an approval may take up to 120 s here.
    const bridge = [{ hooks: [{ type: "command", command: `hookplane hook claude-code --agent ${agent}`, timeout: 300 }] }];
    writeFileSync(path.join(dir, ".qwen", "settings.json"), JSON.stringify({ hooks: Object.fromEntries(events.map((e) => [e, bridge])) }));
    writeFileSync(path.join(dir, "home", ".qwen", "settings.json"), JSON.stringify({ privacy: { usageStatisticsEnabled: false }, security: { auth: { selectedType: "openai" } } }));
    return dir;
  }

  /** `qwen -p` in yolo mode: Qwen itself approves every tool, so whatever stops a call is the hook. */
  async function runQwen(dir: string, prompt: string, env: Record<string, string> = {}) {
    return workspace.run(QWEN!, ["-p", prompt, "--approval-mode", "yolo", "--output-format", "json"], dir, {
      HOME: path.join(dir, "home"),
      OPENAI_BASE_URL: `${fake().url}/v1`,
      OPENAI_API_KEY: "sk-fake",
      OPENAI_MODEL: "qwen3-coder-plus",
      QWEN_CODE_SUPPRESS_YOLO_WARNING: "1",
      ...env,
    }).done;
  }

  shellGateScenarios(h, {
    source: "claude-code",
    shellTool: SHELL,
    project: (name) => project(name),
    run: runQwen,
    modelSaw,
    downSays: /Hookplane unreachable at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/,
    downModelSays: /Hookplane unreachable at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/,
  });

  test("an allowed command runs; the session is a run with its prompt, its context added, the turn's end sent back once, and the transcript's tokens", async () => {
    const dir = project("session", "guided", [...TOOL_EVENTS, "UserPromptSubmit"]);
    const made = path.join(dir, "made");
    const since = new Date();
    const out = await runQwen(dir, `bash: mkdir ${made}`);
    expect(out.code, out.output).toBe(0);
    const runs = (await listRuns(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).filter((r) => r.agentId === h.agentIds.guided && r.createdAt >= since);
    expect(runs).toHaveLength(1);
    const events = await listRunEventsAfter(h.t.db, { runId: runs[0].id, after: 0, limit: 1000 });
    const types = events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["session.start", "tool.pre", "tool.post", "turn.end"]));
    // The empty send of the tool's result is recorded as sent, not as a prompt. After the Stop
    // block Qwen fires UserPromptSubmit again with the block's reason as its prompt: that one is
    // recorded as a prompt (nothing in its payload tells it apart; the docs say so).
    expect(types.filter((t) => t === "claude-code.UserPromptSubmit")).toHaveLength(1);
    expect(events.filter((e) => e.type === "user.prompt.submit").map((e) => (e.data as { prompt: string }).prompt)).toEqual([`bash: mkdir ${made}`, "Run the tests before you stop."]);
    expect(types.filter((t) => t === "turn.end")).toHaveLength(2);
    // The prompt hook's context reached the model, and the first turn end's block came back as an instruction.
    expect(modelSaw()).toContain("Mind the house rules.");
    expect(modelSaw()).toContain("Run the tests before you stop.");
    expect(existsSync(made)).toBe(true);
    const run = (await listRuns(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).find((r) => r.id === runs[0].id)!;
    expect(run.inputTokens).toBeGreaterThanOrEqual(2 * FAKE_CHAT_USAGE.prompt_tokens);
  }, 120_000);

  test("a hook's rewrite is blocked, not run as asked: Qwen drops PreToolUse's updatedInput (the CLI names Qwen, from QWEN_CODE_SESSION_ID)", async () => {
    const dir = project("rewrite", "rewrite");
    const out = await runQwen(dir, "bash: touch original");
    expect(out.code, out.output).toBe(0);
    expect([existsSync(path.join(dir, "rewritten")), existsSync(path.join(dir, "original"))], out.output).toEqual([false, false]);
    expect(modelSaw()).toContain("Qwen Code cannot apply a rewritten input (hook touch-rewritten changed it): blocked rather than run as asked");
    const [run] = (await listRuns(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).filter((r) => r.agentId === h.agentIds.rewrite);
    const pre = (await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 })).find((e) => e.type === "tool.pre")!;
    expect(pre.data).toMatchObject({ via: "qwen-code" });
  }, 120_000);

  test("with Hookplane down and UserPromptSubmit bridged, the prompt itself is refused: no model call, no command", async () => {
    const dir = project("down-prompt", "gates", [...TOOL_EVENTS, "UserPromptSubmit"]);
    const marker = path.join(dir, "marker");
    const calls = fake().requests.length;
    const out = await runQwen(dir, `bash: touch ${marker}`, { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}` });
    expect(existsSync(marker), out.output).toBe(false);
    expect(fake().requests.length).toBe(calls);
  }, 120_000);
});

describe.skipIf(!DROID)(DROID ? "the real Factory droid CLI" : "Factory's droid not installed: set HOOKPLANE_DROID_BIN to its `droid` (npm i @factory/cli-linux-x64@0.225.2: node_modules/@factory/cli-linux-x64/bin/droid) to run these", () => {
  const workspace = useAgentWorkspace(h, "hp-droid-e2e-", startFakeOpenAiChat);
  const fake = () => workspace.fake;

  /** A project whose .factory/hooks.json (keyed by event) bridges to the gates agent; a HOME whose settings add the fake as a custom model. */
  function project(name: string, agent = "gates"): string {
    const dir = path.join(workspace.work, name);
    mkdirSync(path.join(dir, ".factory"), { recursive: true });
    mkdirSync(path.join(dir, "home", ".factory"), { recursive: true });
    // droid reads hook timeouts in seconds. It validates the whole file: an event it does not know voids every hook in it.
    const bridge = [{ matcher: "", hooks: [{ type: "command", command: `hookplane hook claude-code --agent ${agent}`, timeout: 300 }] }];
    writeFileSync(path.join(dir, ".factory", "hooks.json"), JSON.stringify(Object.fromEntries(["SessionStart", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"].map((e) => [e, bridge]))));
    const model = { model: "fake-model", displayName: "Fake", baseUrl: `${fake().url}/v1`, apiKey: "sk-fake", provider: "generic-chat-completion-api", maxOutputTokens: 4096 };
    writeFileSync(path.join(dir, "home", ".factory", "settings.json"), JSON.stringify({ customModels: [model] }));
    return dir;
  }

  /** `droid exec` with every permission skipped: whatever stops a call is the hook. No Factory sign-in: the model is the custom one. */
  function runDroid(dir: string, prompt: string, env: Record<string, string> = {}) {
    return workspace.run(DROID!, ["exec", "--skip-permissions-unsafe", "-m", "custom:fake-model", "-o", "json", prompt], dir, { HOME: path.join(dir, "home"), ...env }).done;
  }

  shellGateScenarios(h, {
    source: "claude-code",
    shellTool: DROID_SHELL,
    project: (name) => project(name),
    run: runDroid,
    modelSaw: () => fake().requests.map((r) => JSON.stringify(r.body.messages ?? [])).join("\n"),
    downModelSays: /Hookplane unreachable at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/,
  });

  test("a hook's rewrite (updatedInput) is what runs", async () => {
    const dir = project("rewrite", "rewrite");
    const out = await runDroid(dir, "bash: touch original");
    expect(out.code, out.output).toBe(0);
    expect([existsSync(path.join(dir, "rewritten")), existsSync(path.join(dir, "original"))], out.output).toEqual([true, false]);
  }, 120_000);

  test("an allowed command runs, and the session is one run from SessionStart to SessionEnd", async () => {
    const dir = project("session");
    const made = path.join(dir, "made");
    const since = new Date();
    const out = await runDroid(dir, `bash: mkdir ${made}`);
    expect(out.code, out.output).toBe(0);
    expect(existsSync(made)).toBe(true);
    const [run, ...more] = (await listRuns(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).filter((r) => r.agentId === h.agentIds.gates && r.createdAt >= since);
    expect(more).toEqual([]);
    // droid exec fires no UserPromptSubmit; SessionEnd ends the run.
    expect(run).toMatchObject({ status: "finished", outcome: "completed", toolsUsed: [DROID_SHELL] });
    const types = (await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 1000 })).map((e) => e.type);
    expect(types).toEqual(["session.start", "tool.pre", "tool.post", "turn.end", "session.end"]);
  }, 120_000);
});
