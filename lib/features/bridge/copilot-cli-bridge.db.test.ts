/**
 * The Copilot CLI bridge: payloads recorded from the real GitHub Copilot CLI 1.0.102
 * (test/fixtures/bridges/copilot, see SOURCE.md) replayed through the ingest endpoint, cost from
 * its events.jsonl through `hookplane hook copilot`, and, when the real `copilot` is installed
 * (HOOKPLANE_COPILOT_BIN, or `copilot` on PATH), the CLI itself offline against a local fake of the
 * Responses API (BYOK): a block, an approval decided through the API, and fail closed.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRunByExternalSession } from "@/db/queries/runs";
import { closedPort, findAgentCli, recordedPayloads, useAgentWorkspace, TESTS_FIRST_HOOK, useBridgeHarness } from "@/test/bridge-harness";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import { shellGateHooks, shellGateScenarios } from "@/test/bridges/shell-gate-scenarios";
import { startFakeResponses } from "@/test/bridges/fake-openai-responses";
import * as copilotRoute from "@/app/api/v1/ingest/copilot/route";

const FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/bridges/copilot");
type Payload = Record<string, unknown> & { sessionId: string; hookEventName: string };
// Copilot's stdin names no event: the file name does, as the bridge command's --event would.
const recorded = (folder: string) => recordedPayloads<Payload>(FIXTURES, folder, (stdin, file) => ({ ...stdin, hookEventName: file.replace(/^\d+-|\.json$/g, "") }));
const COPILOT = findAgentCli("HOOKPLANE_COPILOT_BIN", "copilot");

const h = useBridgeHarness({
  ingest: { method: "POST", path: "/api/v1/ingest/copilot", handler: copilotRoute.POST },
  agents: {
    plain: [],
    gates: [
      ...shellGateHooks("bash"),
      TESTS_FIRST_HOOK,
    ],
  },
});
const send = (agent: string, payload: Payload) => h.send(agent, payload);

describe("recorded Copilot CLI sessions, replayed", () => {
  test("a shell session is a run with source copilot; every field kept, the rest under copilot", async () => {
    const payloads = recorded("shell-ok");
    for (const p of payloads) expect((await send("plain", p)).body).toEqual({});
    const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.plain, externalSessionId: payloads[0].sessionId }))!;
    expect(run).toMatchObject({ source: "copilot", status: "finished", outcome: "completed", reason: "complete", toolsUsed: ["bash"] });
    const events = await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 });
    expect(events.map((e) => e.type)).toEqual(["session.start", "user.prompt.submit", "tool.pre", "tool.permission_request", "tool.post", "turn.end", "session.end"]);
    expect(events[0].data).toMatchObject({ source: "new", prompt: "bash: ls -la", cwd: "/work/cli-lab/pproj" });
    expect(events[2].data).toMatchObject({ toolName: "bash", toolInput: { command: "ls -la", description: "Run a command" }, copilot: { timestamp: payloads[2].timestamp, hookEventName: "preToolUse" } });
    expect(events[3].data.copilot).toMatchObject({ hookName: "permissionRequest", permissionSuggestions: [] });
    expect(events[4].data).toMatchObject({ isError: false, output: payloads[4].toolResult });
    expect(events[5].data).toMatchObject({ stopHookActive: false, copilot: { stopReason: "end_turn", transcriptPath: payloads[5].transcriptPath } });
  });

  test("answers in Copilot's shape: a deny with its reason; agentStop may block; a failed tool is isError", async () => {
    const [, , pre, , post, stop] = recorded("shell-fail").map((p) => ({ ...p, sessionId: "copilot-gates" }));
    expect((await send("gates", { ...pre, toolArgs: { command: "rm -rf /srv" } })).body).toEqual({ permissionDecision: "deny", permissionDecisionReason: "No rm -rf here" });
    expect((await send("gates", pre)).body).toEqual({});
    expect((await send("gates", stop)).body).toEqual({ decision: "block", reason: "Run the tests before you stop." });
    await send("gates", { ...post, toolResult: { resultType: "failure", textResultForLlm: "permission denied" } });
    const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.gates, externalSessionId: "copilot-gates" }))!;
    const events = await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 });
    expect(events.at(-1)!.data).toMatchObject({ isError: true, error: "permission denied" });
  });

  test("the CLI sends the event it is told (--event) and the transcript's usage at agentStop", async () => {
    const payloads = recorded("shell-ok").map((p) => ({ ...p, sessionId: "copilot-cost", transcriptPath: path.join(FIXTURES, "transcripts/events.jsonl") }));
    const strip = ({ hookEventName: _e, ...stdin }: Payload) => stdin;
    for (const p of [payloads[0], payloads[5], payloads[5]]) {
      const out = await runHookplaneCli(["hook", "copilot", "--agent", "plain", "--event", p.hookEventName], strip(p), h.cliEnv());
      expect(out.code, out.stderr).toBe(0);
    }
    const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.plain, externalSessionId: "copilot-cost" }))!;
    const events = await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 });
    expect(events.map((e) => e.type)).toEqual(["session.start", "model.post", "model.post", "turn.end", "turn.end"]);
    expect(run).toMatchObject({ inputTokens: 1800, outputTokens: 80, cachedTokens: 200 });
    const missing = await runHookplaneCli(["hook", "copilot", "--agent", "plain"], strip(payloads[2]), h.cliEnv());
    expect(missing.stderr).toMatch(/name the Copilot CLI event \(--event preToolUse, ...\)/);
  });

  test("no answer on preToolUse: a deny in JSON (Copilot's way to refuse)", async () => {
    const pre = recorded("shell-ok")[2];
    const { hookEventName: _e, ...stdin } = pre;
    const out = await runHookplaneCli(["hook", "copilot", "--agent", "plain", "--event", "preToolUse"], stdin, { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}`, HOOKPLANE_TOKEN: h.operator });
    expect(out.code).toBe(0);
    expect(out.json()).toEqual({ permissionDecision: "deny", permissionDecisionReason: expect.stringMatching(/ECONNREFUSED — blocking because --fail-open is not set/) });
  });
});

describe.skipIf(!COPILOT)(COPILOT ? "the real Copilot CLI" : "Copilot CLI not installed: set HOOKPLANE_COPILOT_BIN to its `copilot` (npm i @github/copilot) to run these", () => {
  const workspace = useAgentWorkspace(h, "hp-copilot-e2e-", startFakeResponses);
  const fake = () => workspace.fake;

  function project(name: string): string {
    const dir = path.join(workspace.work, name);
    mkdirSync(path.join(dir, ".github", "hooks"), { recursive: true });
    mkdirSync(path.join(dir, "home"), { recursive: true });
    const bridge = (event: string, timeoutSec = 30) => [{ type: "command", bash: `hookplane hook copilot --agent gates --event ${event}`, timeoutSec }];
    writeFileSync(
      path.join(dir, ".github", "hooks", "hookplane.json"),
      JSON.stringify({ version: 1, hooks: { sessionStart: bridge("sessionStart"), preToolUse: bridge("preToolUse", 300), sessionEnd: bridge("sessionEnd") } }),
    );
    spawnSync("git", ["init", "-q"], { cwd: dir });
    return dir;
  }

  function runCopilot(dir: string, prompt: string, env: Record<string, string> = {}) {
    const home = path.join(dir, "home");
    return workspace.run(COPILOT!, ["-p", prompt], dir, {
      HOME: home,
      COPILOT_HOME: home,
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_BASE_URL: `${fake().url}/v1`,
      COPILOT_PROVIDER_WIRE_API: "responses",
      COPILOT_PROVIDER_API_KEY: "x",
      COPILOT_MODEL: "fake-model",
      COPILOT_ALLOW_ALL: "true",
      COPILOT_AUTO_UPDATE: "false",
      ...env,
    }).done;
  }

  shellGateScenarios(h, {
    source: "copilot",
    shellTool: "bash",
    project,
    run: runCopilot,
    modelSaw: () => JSON.stringify(fake().requests.map((r) => r.body.input)),
  });
});
