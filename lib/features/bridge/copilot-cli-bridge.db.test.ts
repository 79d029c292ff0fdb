/**
 * The Copilot CLI bridge: payloads recorded from the real GitHub Copilot CLI 1.0.102
 * (test/fixtures/bridges/copilot, see SOURCE.md) replayed through the ingest endpoint, cost from
 * its events.jsonl through `hookplane hook copilot`, and, when the real `copilot` is installed
 * (HOOKPLANE_COPILOT_BIN, or `copilot` on PATH), the CLI itself offline against a local fake of the
 * Responses API (BYOK): a block, an approval decided through the API, and fail closed.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { listApprovals } from "@/db/queries/approvals";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRunByExternalSession, listRuns } from "@/db/queries/runs";
import { closedPort, findAgentCli, recordedPayloads, useAgentWorkspace, TESTS_FIRST_HOOK, useBridgeHarness } from "@/test/bridge-harness";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import { shellGateHooks, shellGateScenarios } from "@/test/bridges/shell-gate-scenarios";
import { startFakeResponses } from "@/test/bridges/fake-openai-responses";
import * as copilotRoute from "@/app/api/v1/ingest/copilot/route";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

const FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/bridges/copilot");
type Payload = Record<string, unknown> & { sessionId: string; hookEventName: string };
// Copilot's stdin names no event: the file name does, as the bridge command's --event would.
const recorded = (folder: string) => recordedPayloads<Payload>(FIXTURES, folder, (stdin, file) => ({ ...stdin, hookEventName: file.replace(/^\d+-|\.json$/g, "") }));
const COPILOT = findAgentCli("HOOKPLANE_COPILOT_BIN", "copilot");
/** A context hook on each event whose answer's `additionalContext` Copilot gives its model. */
const CONTEXT_HOOKS = [
  { id: "ctx-start", event: "session.start", action: { type: "context", text: "HP-START-7731: this repository deploys on Fridays only." } },
  { id: "ctx-prompt", event: "user.prompt.submit", action: { type: "context", text: "HP-PROMPT-4410: answer in English." } },
  { id: "ctx-post", event: "tool.post", matcher: "bash", action: { type: "context", text: "HP-POST-9052: shell output may hold secrets." } },
];

const h = useBridgeHarness({
  ingest: { method: "POST", path: "/api/v1/ingest/copilot", handler: copilotRoute.POST },
  agents: {
    plain: [],
    gates: [
      ...shellGateHooks("bash"),
      TESTS_FIRST_HOOK,
      { id: "no-ddl-prompts", event: "user.prompt.submit", when: "prompt: /DROP TABLE/", action: { type: "block", reason: "No DDL in prompts" } },
    ],
    context: CONTEXT_HOOKS,
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

  test("answers in Copilot's shape: a deny with its reason; a prompt and agentStop may block; a failed tool is isError", async () => {
    const [, , pre, , post, stop] = recorded("shell-fail").map((p) => ({ ...p, sessionId: "copilot-gates" }));
    expect((await send("gates", { ...pre, toolArgs: { command: "rm -rf /srv" } })).body).toEqual({ permissionDecision: "deny", permissionDecisionReason: "No rm -rf here" });
    expect((await send("gates", pre)).body).toEqual({});
    expect((await send("gates", stop)).body).toEqual({ decision: "block", reason: "Run the tests before you stop." });
    const [, prompt] = recorded("shell-fail").map((p) => ({ ...p, sessionId: "copilot-gates" }));
    expect((await send("gates", { ...prompt, prompt: "DROP TABLE users" })).body).toEqual({ decision: "block", reason: "No DDL in prompts" });
    expect((await send("gates", prompt)).body).toEqual({});
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

  test("no answer on preToolUse or permissionRequest: a deny in JSON (Copilot's way to refuse)", async () => {
    const pre = recorded("shell-ok")[2];
    const { hookEventName: _e, ...stdin } = pre;
    const out = await runHookplaneCli(["hook", "copilot", "--agent", "plain", "--event", "preToolUse"], stdin, { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}`, HOOKPLANE_TOKEN: h.operator });
    expect(out.code).toBe(0);
    expect(out.json()).toEqual({ permissionDecision: "deny", permissionDecisionReason: expect.stringMatching(/ECONNREFUSED — blocking because --fail-open is not set/) });
    // permissionRequest decides now: with no answer it refuses in its own shape.
    const { hookEventName: _p, ...permission } = recorded("shell-ok")[3];
    const refused = await runHookplaneCli(["hook", "copilot", "--agent", "plain", "--event", "permissionRequest"], permission, { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}`, HOOKPLANE_TOKEN: h.operator });
    expect([refused.code, refused.json()]).toEqual([0, { behavior: "deny", message: expect.stringMatching(/ECONNREFUSED — blocking/) }]);
  });
});

describe("Copilot CLI answers: context, permissionRequest, a session's usage", () => {
  test("context hooks answer additionalContext on sessionStart, userPromptSubmitted and postToolUse; nowhere else", async () => {
    const payloads = recorded("shell-ok").map((p) => ({ ...p, sessionId: "copilot-context" }));
    const answers = Object.fromEntries(await Promise.all(payloads.map(async (p) => [p.hookEventName, (await send("context", p)).body] as const)));
    expect(answers).toEqual({
      sessionStart: { additionalContext: "HP-START-7731: this repository deploys on Fridays only." },
      userPromptSubmitted: { additionalContext: "HP-PROMPT-4410: answer in English." },
      preToolUse: {},
      permissionRequest: {},
      postToolUse: { additionalContext: "HP-POST-9052: shell output may hold secrets." },
      agentStop: {},
      sessionEnd: {},
    });
    // The plain agent has no context hooks: nothing is added.
    expect((await send("plain", { ...payloads[0], sessionId: "copilot-no-context" })).body).toEqual({});
  });

  test("permissionRequest asks tool.pre's approve hooks: a person's no is Copilot's deny; one already decided at preToolUse answers at once", async () => {
    const [start, , pre, permission] = recorded("shell-ok");
    const touch = (file: string) => ({ pre: { ...pre, toolArgs: { command: `touch ${file}`, description: "Run a command" } }, permission: { ...permission, toolInput: { command: `touch ${file}` } } });
    // permissionRequest alone (a hook file that binds only it): it asks, and a person's no denies with the reason.
    const alone = touch("/tmp/hp-perm-alone");
    await send("gates", { ...start, sessionId: "copilot-perm-alone" });
    const asking = send("gates", { ...alone.permission, sessionId: "copilot-perm-alone" });
    let approval = await h.pendingApproval((a) => JSON.stringify(a.toolInput).includes("hp-perm-alone"), { timeout: 15_000 });
    expect((await h.decide(approval.id, { decision: "deny", reason: "not on Sundays" })).status).toBe(200);
    expect((await asking).body).toEqual({ behavior: "deny", message: expect.stringContaining("not on Sundays") });

    // preToolUse asked and a person approved; the permissionRequest that follows (its input less the description) is that call: allow, no second approval.
    const both = touch("/tmp/hp-perm-both");
    await send("gates", { ...start, sessionId: "copilot-perm-both" });
    const asked = send("gates", { ...both.pre, sessionId: "copilot-perm-both" });
    approval = await h.pendingApproval((a) => JSON.stringify(a.toolInput).includes("hp-perm-both"), { timeout: 15_000 });
    await h.decide(approval.id, { decision: "approve" });
    expect((await asked).body).toMatchObject({ permissionDecision: "allow" });
    expect((await send("gates", { ...both.permission, sessionId: "copilot-perm-both" })).body).toEqual({ behavior: "allow" });
    expect((await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 })).filter((a) => JSON.stringify(a.toolInput).includes("hp-perm-both"))).toHaveLength(1);
    const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.gates, externalSessionId: "copilot-perm-both" }))!;
    const events = await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 });
    const [announced] = events.filter((e) => e.type === "tool.pre");
    expect(events.find((e) => e.type === "tool.permission_request")!.data.toolCallId).toBe(announced.data.toolCallId);

    // A call no approve hook matches, and a blocked rm -rf's permissionRequest: {} (Copilot's own permission flow decides).
    expect((await send("gates", { ...permission, sessionId: "copilot-perm-both" })).body).toEqual({});
  });

  test("usage is read at agentStop and again at sessionEnd (from COPILOT_HOME's events file): each model call counted once", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "hp-copilot-home-"));
    const sessionId = "copilot-usage-5c1f";
    const file = path.join(home, "session-state", sessionId, "events.jsonl");
    mkdirSync(path.dirname(file), { recursive: true });
    const [first, second] = readFileSync(path.join(FIXTURES, "transcripts/events.jsonl"), "utf8").split("\n").filter((l) => l.includes('"session.usage_record"'));
    writeFileSync(file, `${first}\n`);
    const payloads = recorded("shell-ok").map((p) => ({ ...p, sessionId, ...(p.transcriptPath ? { transcriptPath: file } : {}) }));
    const strip = ({ hookEventName: _e, ...stdin }: Payload) => stdin;
    const env = { ...h.cliEnv(), COPILOT_HOME: home };
    const hook = async (p: Payload) => {
      const out = await runHookplaneCli(["hook", "copilot", "--agent", "plain", "--event", p.hookEventName], strip(p), env);
      expect(out.code, out.stderr).toBe(0);
    };
    await hook(payloads[0]);
    await hook(payloads[5]); // agentStop: Copilot has written the first call's usage only
    appendFileSync(file, `${second}\n`); // ...and writes the last one after agentStop
    await hook(payloads[6]); // sessionEnd names no file: the session's own under COPILOT_HOME
    const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.plain, externalSessionId: sessionId }))!;
    const events = await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 });
    expect(events.map((e) => e.type)).toEqual(["session.start", "model.post", "turn.end", "model.post", "session.end"]);
    expect(run).toMatchObject({ status: "finished", inputTokens: 1800, outputTokens: 80, cachedTokens: 200 });
    // Another session's sessionEnd with no events file: nothing added, no failure.
    const other = await runHookplaneCli(["hook", "copilot", "--agent", "plain", "--event", "sessionEnd"], { ...strip(payloads[6]), sessionId: "copilot-usage-none" }, env);
    expect(other.code).toBe(0);
    const none = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.plain, externalSessionId: "copilot-usage-none" }))!;
    expect(none).toMatchObject({ inputTokens: 0, outputTokens: 0 });
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

  /** A project whose hook file binds `events` to `agent`. */
  function projectFor(name: string, agent: string, events: string[]): string {
    const dir = path.join(workspace.work, name);
    mkdirSync(path.join(dir, ".github", "hooks"), { recursive: true });
    mkdirSync(path.join(dir, "home"), { recursive: true });
    const hooks = Object.fromEntries(events.map((e) => [e, [{ type: "command", bash: `hookplane hook copilot --agent ${agent} --event ${e}`, timeoutSec: 300 }]]));
    writeFileSync(path.join(dir, ".github", "hooks", "hookplane.json"), JSON.stringify({ version: 1, hooks }));
    spawnSync("git", ["init", "-q"], { cwd: dir });
    return dir;
  }

  test("the model sees what context hooks say on sessionStart, userPromptSubmitted and postToolUse; the session's usage is all counted", async () => {
    const dir = projectFor("context", "context", ["sessionStart", "userPromptSubmitted", "postToolUse", "agentStop", "sessionEnd"]);
    const before = fake().requests.length;
    const out = await runCopilot(dir, "bash: echo hello");
    expect(out.code, out.output).toBe(0);
    const requests = fake().requests.slice(before);
    const saw = JSON.stringify(requests.map((r) => r.body.input));
    for (const text of ["HP-START-7731", "HP-PROMPT-4410", "HP-POST-9052"]) expect(saw, `the model never saw ${text}`).toContain(text);
    const run = (await listRuns(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).find((r) => r.source === "copilot" && r.agentId === h.agentIds.context)!;
    expect(run).toMatchObject({ status: "finished" });
    // Each of the session's model calls once (FAKE_RESPONSES_USAGE), the last one written after agentStop.
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(run).toMatchObject({ inputTokens: requests.length * 900, outputTokens: requests.length * 40, cachedTokens: requests.length * 100 });
  }, 120_000);

  test("without --allow-all, a person's yes through permissionRequest lets a command run in prompt mode; a no keeps it from running", async () => {
    for (const decision of ["approve", "deny"] as const) {
      const dir = projectFor(`perm-${decision}`, "gates", ["permissionRequest"]);
      const marker = path.join(dir, "approved");
      const done = runCopilot(dir, `bash: touch ${marker}`, { COPILOT_ALLOW_ALL: "", GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS: "true" });
      const approval = await h.pendingApproval((a) => JSON.stringify(a.toolInput).includes(marker));
      expect((await h.decide(approval.id, { decision })).status).toBe(200);
      const out = await done;
      const asked = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).filter((a) => JSON.stringify(a.toolInput).includes(marker));
      const said = `${out.output}\napprovals: ${JSON.stringify(asked.map((a) => [a.id, a.status, a.reason]))}`;
      expect(asked.map((a) => a.status), said).toEqual([decision === "approve" ? "approved" : "denied"]);
      if (decision === "approve") await expect.poll(() => existsSync(marker), { timeout: 5_000, message: `approved, never ran:\n${said}` }).toBe(true);
      else expect(existsSync(marker), out.output).toBe(false);
    }
  }, 180_000);

  test("preToolUse and permissionRequest both bound, without --allow-all: one person's yes at preToolUse settles the call (one approval, no permissionRequest), and the command runs", async () => {
    const dir = projectFor("pre-and-perm", "gates", ["preToolUse", "permissionRequest"]);
    const marker = path.join(dir, "approved");
    const done = runCopilot(dir, `bash: touch ${marker}`, { COPILOT_ALLOW_ALL: "", GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS: "true" });
    const approval = await h.pendingApproval((a) => JSON.stringify(a.toolInput).includes(marker));
    expect((await h.decide(approval.id, { decision: "approve" })).status).toBe(200);
    const out = await done;
    const asked = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).filter((a) => JSON.stringify(a.toolInput).includes(marker));
    expect(asked.map((a) => a.status), out.output).toEqual(["approved"]);
    await expect.poll(() => existsSync(marker), { timeout: 5_000, message: `approved, never ran:\n${out.output}` }).toBe(true);
    // preToolUse's allow settles Copilot's permission: it does not ask permissionRequest about that call.
    const events = await listRunEventsAfter(h.t.db, { runId: asked[0].runId, after: 0, limit: 100 });
    expect(events.filter((e) => e.type === "tool.pre")).toHaveLength(1);
    expect(events.filter((e) => e.type === "tool.permission_request")).toEqual([]);
  }, 180_000);

  test("a refused prompt (userPromptSubmitted block): no model turn runs, the command in it never runs", async () => {
    const dir = projectFor("prompt-block", "gates", ["userPromptSubmitted"]);
    const marker = path.join(dir, "marker");
    const before = fake().requests.length;
    const out = await runCopilot(dir, `bash: touch ${marker} # DROP TABLE users`);
    expect(out.output).toContain("No DDL in prompts");
    expect(fake().requests.length, "the model was asked").toBe(before);
    expect(existsSync(marker)).toBe(false);
  }, 120_000);

  shellGateScenarios(h, {
    source: "copilot",
    shellTool: "bash",
    project,
    run: runCopilot,
    modelSaw: () => JSON.stringify(fake().requests.map((r) => r.body.input)),
  });
});
