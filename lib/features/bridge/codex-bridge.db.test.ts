/**
 * The Codex bridge: payloads recorded from the real Codex CLI 0.169.0 and 0.171.0 (test/fixtures/bridges/codex,
 * see SOURCE.md) replayed through the ingest endpoint, cost from its rollout file through the
 * `hookplane hook codex` CLI, and, when the real `codex` is installed (HOOKPLANE_CODEX_BIN, or
 * `codex` on PATH), the CLI itself against a local fake of the Responses API: a block, an approval
 * decided through the API, fail closed with the server down, and (0.171) Ctrl-C as an Interrupt.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRunByExternalSession, listRuns } from "@/db/queries/runs";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { findAgentCli, recordedPayloads, useAgentWorkspace, TESTS_FIRST_HOOK, useBridgeHarness } from "@/test/bridge-harness";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import { shellGateHooks, shellGateScenarios } from "@/test/bridges/shell-gate-scenarios";
import { startFakeResponses } from "@/test/bridges/fake-openai-responses";
import * as codexRoute from "@/app/api/v1/ingest/codex/route";

const FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/bridges/codex");
type Payload = Record<string, unknown> & { session_id: string; hook_event_name: string };
const recorded = (folder: string) => recordedPayloads<Payload>(FIXTURES, folder);
const CODEX = findAgentCli("HOOKPLANE_CODEX_BIN", "codex");
/** The installed Codex's version as [major, minor, patch] (Interrupt came in 0.171). */
const CODEX_VERSION = CODEX ? (/(\d+)\.(\d+)\.(\d+)/.exec(spawnSync(CODEX, ["--version"], { encoding: "utf8" }).stdout)?.slice(1).map(Number) ?? [0, 0, 0]) : [0, 0, 0];
const HAS_INTERRUPT = CODEX_VERSION[0] > 0 || CODEX_VERSION[1] >= 171;

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

  test("Codex 0.171 sends the same fields; its Interrupt is turn.interrupted, and the session's end right after it ends the run cancelled", async () => {
    const ok = recorded("shell-ok-0.171");
    for (const p of ok) expect((await send("plain", p)).body).toEqual({});
    const okRun = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.plain, externalSessionId: ok[0].session_id }))!;
    expect(okRun).toMatchObject({ source: "codex", status: "finished", outcome: "completed", reason: "other", toolsUsed: ["Bash"] });

    // `codex exec` with Ctrl-C during `sleep 25`: Interrupt, then SessionEnd `other`.
    const interrupted = recorded("interrupt-0.171");
    // Codex reads only `systemMessage` from an Interrupt answer: {} is all Hookplane says.
    for (const p of interrupted) expect((await send("gates", p)).body).toEqual({});
    const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.gates, externalSessionId: interrupted[0].session_id }))!;
    expect(run).toMatchObject({ status: "finished", outcome: "cancelled", reason: "interrupted by the user (then other)" });
    const events = await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 });
    expect(events.map((e) => e.type)).toEqual(["session.start", "user.prompt.submit", "tool.pre", "turn.interrupted", "session.end"]);
    expect(events[3].data).toMatchObject({ turnId: interrupted[3].turn_id, reason: "interrupted by the user", codex: { hook_event_name: "Interrupt", model: "fake-model", permission_mode: "bypassPermissions" } });
    expect(events[4].data).toMatchObject({ outcome: "cancelled" });

    // In the TUI the person goes on after an interrupt: a later prompt, then an ordinary end, is completed.
    const goOn = interrupted.map((p) => ({ ...p, session_id: "codex-interrupt-then-more" }));
    for (const p of [...goOn.slice(0, 4), goOn[1], goOn[4]]) await send("plain", p);
    const more = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.plain, externalSessionId: "codex-interrupt-then-more" }))!;
    expect(more).toMatchObject({ status: "finished", outcome: "completed", reason: "other" });
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

  function project(name: string, events = ["SessionStart", "PreToolUse", "Stop", "SessionEnd"]): string {
    const dir = path.join(workspace.work, name);
    const home = path.join(dir, "codex-home");
    mkdirSync(path.join(dir, ".codex"), { recursive: true });
    mkdirSync(home, { recursive: true });
    const bridge = [{ hooks: [{ type: "command", command: "hookplane hook codex --agent gates" }] }];
    writeFileSync(path.join(dir, ".codex", "hooks.json"), JSON.stringify({ hooks: Object.fromEntries(events.map((e) => [e, bridge])) }));
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

  test.skipIf(!HAS_INTERRUPT)("Ctrl-C during a command (Codex 0.171's Interrupt): the turn is recorded interrupted and the run ends cancelled", async () => {
    const dir = project("interrupt", ["SessionStart", "UserPromptSubmit", "PreToolUse", "Interrupt", "SessionEnd"]);
    const since = new Date();
    const home = path.join(dir, "codex-home");
    const started = workspace.run(CODEX!, ["exec", "--dangerously-bypass-hook-trust", `bash: sleep 40`], dir, { HOME: home, CODEX_HOME: home, FAKE_OPENAI_KEY: "x" });
    let run: Awaited<ReturnType<typeof listRuns>>[number] | undefined;
    await expect
      .poll(async () => (run = (await listRuns(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).find((r) => r.source === "codex" && r.agentId === h.agentIds.gates && r.createdAt >= since))?.toolsUsed ?? [], { timeout: 60_000 })
      .toContain("Bash");
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the command is running
    started.child.kill("SIGINT");
    const out = await started.done;
    expect(out.output).toMatch(/hook: Interrupt/);
    await expect.poll(async () => (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.gates, externalSessionId: run!.externalSessionId! }))?.status, { timeout: 15_000 }).toBe("finished");
    const finished = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.gates, externalSessionId: run!.externalSessionId! }))!;
    expect(finished, out.output).toMatchObject({ outcome: "cancelled" });
    const types = (await listRunEventsAfter(h.t.db, { runId: finished.id, after: 0, limit: 100 })).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["tool.pre", "turn.interrupted", "session.end"]));
    expect(types.indexOf("turn.interrupted")).toBeLessThan(types.indexOf("session.end"));
  }, 120_000);

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
