/**
 * The Codex bridge: payloads recorded from the real Codex CLI 0.169.0 (test/fixtures/bridges/codex,
 * see SOURCE.md) replayed through the ingest endpoint, cost from its rollout file through the
 * `hookplane hook codex` CLI, and, when the real `codex` is installed (HOOKPLANE_CODEX_BIN, or
 * `codex` on PATH), the CLI itself against a local fake of the Responses API: a block, an approval
 * decided through the API, and fail closed with the server down.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRunByExternalSession } from "@/db/queries/runs";
import { findAgentCli, recordedPayloads, useAgentWorkspace, TESTS_FIRST_HOOK, useBridgeHarness } from "@/test/bridge-harness";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import { shellGateHooks, shellGateScenarios } from "@/test/bridges/shell-gate-scenarios";
import { startFakeResponses } from "@/test/bridges/fake-openai-responses";
import * as codexRoute from "@/app/api/v1/ingest/codex/route";

const FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/bridges/codex");
type Payload = Record<string, unknown> & { session_id: string; hook_event_name: string };
const recorded = (folder: string) => recordedPayloads<Payload>(FIXTURES, folder);
const CODEX = findAgentCli("HOOKPLANE_CODEX_BIN", "codex");

const h = useBridgeHarness({
  ingest: { method: "POST", path: "/api/v1/ingest/codex", handler: codexRoute.POST },
  agents: {
    plain: [],
    gates: [
      ...shellGateHooks("Bash"),
      { id: "note", event: "tool.pre", matcher: "Bash", action: { type: "context", text: "Mind the shell." } },
      TESTS_FIRST_HOOK,
    ],
  },
});
const send = (agent: string, payload: Payload) => h.send(agent, payload);

describe("recorded Codex sessions, replayed", () => {
  test("a shell session is a run with source codex; every field kept, the rest under codex", async () => {
    const payloads = recorded("shell-ok");
    for (const p of payloads) expect((await send("plain", p)).body).toEqual({});
    const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.plain, externalSessionId: payloads[0].session_id }))!;
    expect(run).toMatchObject({ source: "codex", status: "finished", outcome: "completed", reason: "other", toolsUsed: ["Bash"] });
    const events = await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 });
    expect(events.map((e) => e.type)).toEqual(["session.start", "user.prompt.submit", "tool.pre", "tool.post", "turn.end", "session.end"]);
    expect(events[2].data).toMatchObject({ toolName: "Bash", toolInput: { command: "ls" }, toolCallId: payloads[2].tool_use_id, cwd: "/work/cli-lab/cproj" });
    expect(events[2].data.codex).toEqual({ turn_id: payloads[2].turn_id, transcript_path: payloads[2].transcript_path, hook_event_name: "PreToolUse", model: "fake-model", permission_mode: "bypassPermissions" });
  });

  test("answers in Codex's shape: a deny with its reason; an allow or context is {} (Codex refuses them on PreToolUse); Stop may block", async () => {
    const [, , pre, , stop] = recorded("shell-fail").map((p) => ({ ...p, session_id: "codex-gates" }));
    expect((await send("gates", { ...pre, tool_input: { command: "rm -rf /srv" } })).body).toEqual({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "No rm -rf here" },
    });
    expect((await send("gates", pre)).body).toEqual({});
    expect((await send("gates", stop)).body).toEqual({ decision: "block", reason: "Run the tests before you stop." });
  });

  test("cost from the rollout file at Stop, each model call once", async () => {
    const payloads = recorded("shell-fail").map((p) => ({ ...p, session_id: "codex-cost", transcript_path: path.join(FIXTURES, "transcripts/rollout-2026-11-24T09-43-47-01a20cf0-a7e1-7d93-9b1b-36e66f73ea86.jsonl") }));
    const stop = payloads.find((p) => p.hook_event_name === "Stop")!;
    for (const p of [payloads[0], stop, stop]) {
      const out = await runHookplaneCli(["hook", "codex", "--agent", "plain"], p, h.cliEnv());
      expect(out.code, out.stderr).toBe(0);
    }
    const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.plain, externalSessionId: "codex-cost" }))!;
    const posts = (await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 })).filter((e) => e.type === "model.post");
    expect(posts.map((e) => [e.data.model, e.data.inputTokens, e.data.outputTokens, e.data.cachedTokens])).toEqual([
      ["openai:fake-model", 900, 40, 100],
      ["openai:fake-model", 900, 40, 100],
    ]);
    expect(run).toMatchObject({ inputTokens: 1800, outputTokens: 80, cachedTokens: 200 });
  });
});

describe.skipIf(!CODEX)(CODEX ? "the real Codex CLI" : "Codex CLI not installed: set HOOKPLANE_CODEX_BIN to its `codex` (npm i @openai/codex) to run these", () => {
  const workspace = useAgentWorkspace(h, "hp-codex-e2e-", startFakeResponses);
  const fake = () => workspace.fake;

  function project(name: string): string {
    const dir = path.join(workspace.work, name);
    const home = path.join(dir, "codex-home");
    mkdirSync(path.join(dir, ".codex"), { recursive: true });
    mkdirSync(home, { recursive: true });
    const bridge = [{ hooks: [{ type: "command", command: "hookplane hook codex --agent gates" }] }];
    writeFileSync(path.join(dir, ".codex", "hooks.json"), JSON.stringify({ hooks: { SessionStart: bridge, PreToolUse: bridge, Stop: bridge, SessionEnd: bridge } }));
    writeFileSync(
      path.join(home, "config.toml"),
      [
        'model = "fake-model"',
        'model_provider = "fake"',
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        "[model_providers.fake]",
        'name = "fake"',
        `base_url = "${fake().url}/v1"`,
        'wire_api = "responses"',
        'env_key = "FAKE_OPENAI_KEY"',
        `[projects."${dir}"]`,
        'trust_level = "trusted"',
      ].join("\n"),
    );
    spawnSync("git", ["init", "-q"], { cwd: dir });
    return dir;
  }

  function runCodex(dir: string, prompt: string, env: Record<string, string> = {}) {
    const home = path.join(dir, "codex-home");
    return workspace.run(CODEX!, ["exec", "--dangerously-bypass-hook-trust", prompt], dir, { HOME: home, CODEX_HOME: home, FAKE_OPENAI_KEY: "x", ...env }).done;
  }

  shellGateScenarios(h, {
    source: "codex",
    shellTool: "Bash",
    project,
    run: runCodex,
    modelSaw: () => JSON.stringify(fake().requests.map((r) => r.body.input)),
    downCommand: (marker) => `echo hi > ${marker}`,
    downSays: /ECONNREFUSED/,
  });
});
