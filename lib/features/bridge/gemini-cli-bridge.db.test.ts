/**
 * The Gemini CLI bridge: payloads recorded from the real Gemini CLI 0.61.0
 * (test/fixtures/bridges/gemini-cli, see SOURCE.md) replayed through the ingest endpoint, cost from
 * its recorded transcript through the `hookplane hook gemini-cli` CLI, and, when the real `gemini`
 * is installed (HOOKPLANE_GEMINI_BIN, or `gemini` on PATH), the CLI itself against a local fake of
 * the Gemini API: a block, an approval decided through the API, and fail closed with the server down.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRunByExternalSession, listRuns } from "@/db/queries/runs";
import { closedPort, findAgentCli, recordedPayloads, useAgentWorkspace, noRmHook, TESTS_FIRST_HOOK, useBridgeHarness } from "@/test/bridge-harness";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import { startFakeGemini } from "@/test/bridges/fake-gemini-api";
import * as geminiRoute from "@/app/api/v1/ingest/gemini-cli/route";
import * as eventsRoute from "@/app/api/v1/ingest/events/route";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

const FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/bridges/gemini-cli");
type Payload = Record<string, unknown> & { session_id: string; hook_event_name: string };
const recorded = (folder: string) => recordedPayloads<Payload>(FIXTURES, folder);
const GEMINI = findAgentCli("HOOKPLANE_GEMINI_BIN", "gemini");

const h = useBridgeHarness({
  ingest: { method: "POST", path: "/api/v1/ingest/gemini-cli", handler: geminiRoute.POST },
  // `hookplane login --with-token` checks the credential there.
  routes: [{ method: "POST", path: "/api/v1/ingest/events", handler: eventsRoute.POST }],
  agents: {
    plain: [],
    gates: [
      noRmHook("run_shell_command"),
      { id: "ask-writes", event: "tool.pre", matcher: "write_file", action: { type: "approve", timeoutMs: 120_000, onTimeout: "deny" } },
      { id: "fail-note", event: "tool.post", when: "isError", action: { type: "context", text: "A command failed: say so." } },
      TESTS_FIRST_HOOK,
      { id: "ci-no-deploys", event: "tool.pre", matcher: "run_shell_command", when: "actor.tier: headless", action: { type: "block", reason: "CI does not deploy", denyIf: "deploy-prod" } },
    ],
  },
});

/**
 * The environment Gemini CLI gives its hooks in GitHub Actions (GITHUB_SHA set: its strict
 * sanitization, packages/core/src/services/environmentSanitization.ts): PATH, HOME and a few
 * GitHub variables survive; HOOKPLANE_*, XDG_CONFIG_HOME and CI do not.
 */
function strippedEnv(home: string): Record<string, string | undefined> {
  const gone = Object.fromEntries(Object.keys(process.env).map((k) => [k, undefined]));
  return { ...gone, PATH: process.env.PATH, HOME: home, GITHUB_ENV: path.join(home, "github-env") };
}
const send = (agent: string, payload: Payload) => h.send(agent, payload);

async function eventsOf(agent: string, sessionId: string) {
  const run = await getRunByExternalSession(h.t.db, { agentId: h.agentIds[agent], externalSessionId: sessionId });
  expect(run, sessionId).toBeTruthy();
  return { run: run!, events: await listRunEventsAfter(h.t.db, { runId: run!.id, after: 0, limit: 1000 }) };
}

describe("recorded Gemini CLI sessions, replayed", () => {
  test("a shell session: every event recorded with every field; the tool's run and the turn's end", async () => {
    const payloads = recorded("shell-ok");
    for (const p of payloads) expect((await send("plain", p)).status).toBe(200);
    const { run, events } = await eventsOf("plain", payloads[0].session_id);
    expect(run).toMatchObject({ source: "gemini-cli", status: "finished", outcome: "completed", reason: "exit", toolsUsed: ["run_shell_command"] });
    expect(events.map((e) => e.type)).toEqual([
      "session.start",
      "user.prompt.submit",
      "gemini-cli.PreCompress",
      "gemini-cli.BeforeModel",
      "gemini-cli.BeforeToolSelection",
      "gemini-cli.AfterModel",
      "tool.pre",
      "tool.post",
      "gemini-cli.PreCompress",
      "gemini-cli.BeforeModel",
      "gemini-cli.BeforeToolSelection",
      "gemini-cli.AfterModel",
      "turn.end",
      "session.end",
    ]);
    const post = events.find((e) => e.type === "tool.post")!.data;
    expect(post).toMatchObject({ toolName: "run_shell_command", toolInput: { command: "ls -la", description: "Run a command" }, isError: false, cwd: "/work/cli-lab/gproj" });
    expect(post.output).toEqual(payloads[7].tool_response);
    expect((post.geminiCli as Record<string, unknown>).timestamp).toBe(payloads[7].timestamp);
    expect(events.find((e) => e.type === "turn.end")!.data).toMatchObject({ stopHookActive: false, response: "Done." });
    // The model hooks' payloads are kept whole.
    expect((events[3].data.geminiCli as Record<string, unknown>).llm_request).toEqual(payloads[3].llm_request);
  });

  test("a tool error is a tool.post with isError and the error; hooks answer in Gemini CLI's shape", async () => {
    const payloads = recorded("shell-fail").map((p) => ({ ...p, session_id: `${p.session_id}-gates` }));
    const answers: Record<string, unknown>[] = [];
    for (const p of payloads) answers.push((await send("gates", p)).body);
    const at = (event: string) => answers[payloads.findIndex((p) => p.hook_event_name === event)];
    // To Gemini CLI a command that exits 3 ran fine (no tool_response.error): Hookplane says the same.
    expect(at("AfterTool")).toEqual({});
    expect(at("AfterAgent")).toEqual({ decision: "deny", reason: "Run the tests before you stop." });
    const { events } = await eventsOf("gates", payloads[0].session_id);
    expect(events.find((e) => e.type === "tool.post")!.data).toMatchObject({ toolName: "run_shell_command", isError: false });

    // A tool that failed, as Gemini CLI's hooks reference describes it (tool_response.error).
    const failed = { ...payloads.find((p) => p.hook_event_name === "AfterTool")!, tool_name: "read_file", tool_input: { file_path: "/nope" }, tool_response: { llmContent: "", returnDisplay: "", error: { message: "File not found: /nope", type: "file_not_found" } } };
    expect((await send("gates", failed)).body).toEqual({ hookSpecificOutput: { hookEventName: "AfterTool", additionalContext: "A command failed: say so." } });
    const after = await eventsOf("gates", payloads[0].session_id);
    expect(after.events.at(-1)!.data).toMatchObject({ toolName: "read_file", isError: true, error: "File not found: /nope" });

    const rm = { ...payloads.find((p) => p.hook_event_name === "BeforeTool")!, session_id: "gemini-rm", tool_input: { command: "rm -rf /srv" } };
    expect((await send("gates", rm)).body).toEqual({ decision: "deny", reason: "No rm -rf here" });
  });

  test("cost from the transcript at AfterAgent, each message once (Gemini rewrites a message as it grows)", async () => {
    const payloads = recorded("shell-ok").map((p) => ({ ...p, session_id: "gemini-cost", transcript_path: path.join(FIXTURES, "transcripts/session-2026-11-24T09-38-429aac0a.jsonl") }));
    const end = payloads.find((p) => p.hook_event_name === "AfterAgent")!;
    for (const p of [payloads[0], end, end]) {
      const out = await runHookplaneCli(["hook", "gemini-cli", "--agent", "plain"], p, h.cliEnv());
      expect(out.code, out.stderr).toBe(0);
    }
    const { run, events } = await eventsOf("plain", "gemini-cost");
    expect(events.filter((e) => e.type === "model.post").map((e) => [e.data.model, e.data.inputTokens, e.data.outputTokens, e.data.cachedTokens])).toEqual([
      ["google:gemini-3.1-pro-preview", 1000, 50, 200],
      ["google:gemini-3.1-pro-preview", 1000, 50, 200],
    ]);
    expect(run).toMatchObject({ inputTokens: 2000, outputTokens: 100, cachedTokens: 400 });
  });

  test("no answer: BeforeTool fails closed; AfterAgent never (exit 2 there would make Gemini retry)", async () => {
    const env = { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}`, HOOKPLANE_TOKEN: h.operator };
    const [before, after] = ["BeforeTool", "AfterAgent"].map((e) => recorded("shell-ok").find((p) => p.hook_event_name === e)!);
    const closed = await runHookplaneCli(["hook", "gemini-cli", "--agent", "plain"], before, env);
    expect(closed.code).toBe(2);
    expect(closed.stderr).toMatch(/ECONNREFUSED — blocking because --fail-open is not set/);
    const open = await runHookplaneCli(["hook", "gemini-cli", "--agent", "plain"], after, env);
    expect(open.code).toBe(0);
    expect(open.stderr).toMatch(/not blocking AfterAgent: exit 2 there would keep Gemini CLI working/);
  });
});

describe("Gemini CLI in CI: hooks get no HOOKPLANE_TOKEN", () => {
  test("`hookplane login --with-token` stores the credential in HOME, where the stripped hook finds it; a refused or unchecked one is not stored", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "hp-gemini-ci-"));
    const file = path.join(home, ".config", "hookplane", "credentials.json");
    const env = { ...strippedEnv(home), HOOKPLANE_URL: h.server.url };
    const before = recorded("shell-ok").find((p) => p.hook_event_name === "BeforeTool")!;
    const rm = { ...before, session_id: "gemini-ci", tool_input: { command: "rm -rf /srv" } };

    // As Gemini runs it in CI, with no credential stored: refused (fail closed), nothing recorded.
    const unsigned = await runHookplaneCli(["hook", "gemini-cli", "--agent", "gates"], rm, strippedEnv(home));
    expect(unsigned.code).toBe(2);
    expect(unsigned.stderr).toMatch(/not signed in/);
    expect(await getRunByExternalSession(h.t.db, { agentId: h.agentIds.gates, externalSessionId: "gemini-ci" })).toBeUndefined();

    // Wrong side: a credential Hookplane refuses, or none it could check, is not stored.
    const refused = await runHookplaneCli(["login", "--with-token"], "hp_not_a_credential", env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/answered 401.*nothing stored/);
    const unreachable = await runHookplaneCli(["login", "--with-token", "--url", `http://127.0.0.1:${await closedPort()}`], h.operator, env);
    expect(unreachable.code).toBe(2);
    expect(existsSync(file)).toBe(false);

    const stored = await runHookplaneCli(["login", "--with-token"], `${h.operator}\n`, env);
    expect(stored.code, stored.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ url: h.server.url, token: h.operator });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // The hook as Gemini runs it: no HOOKPLANE_* at all; the stored URL and credential answer, and the call is headless (GITHUB_ENV).
    const denied = await runHookplaneCli(["hook", "gemini-cli", "--agent", "gates"], rm, strippedEnv(home));
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.json()).toEqual({ decision: "deny", reason: "No rm -rf here" });
    const deploy = await runHookplaneCli(["hook", "gemini-cli", "--agent", "gates"], { ...rm, tool_input: { command: "make deploy-prod" } }, strippedEnv(home));
    expect(deploy.json()).toEqual({ decision: "deny", reason: "CI does not deploy" });
    const { run } = await eventsOf("gates", "gemini-ci");
    expect(run).toMatchObject({ blocked: true, toolsUsed: ["run_shell_command"] });
  });
});

describe.skipIf(!GEMINI)(GEMINI ? "the real Gemini CLI" : "Gemini CLI not installed: set HOOKPLANE_GEMINI_BIN to its `gemini` (npm i @google/gemini-cli) to run these", () => {
  const workspace = useAgentWorkspace(h, "hp-gemini-e2e-", startFakeGemini);
  const fake = () => workspace.fake;

  /** A trusted project whose settings send the gating and session events through the bridge. */
  function project(name: string): string {
    const dir = path.join(workspace.work, name);
    const home = path.join(dir, "home");
    mkdirSync(path.join(dir, ".gemini"), { recursive: true });
    mkdirSync(path.join(home, ".gemini"), { recursive: true });
    const bridge = (timeout?: number) => [{ hooks: [{ type: "command", command: "hookplane hook gemini-cli --agent gates", ...(timeout ? { timeout } : {}) }] }];
    const hooks = { SessionStart: bridge(), BeforeAgent: bridge(), BeforeTool: bridge(120_000), AfterTool: bridge(), SessionEnd: bridge() };
    writeFileSync(path.join(dir, ".gemini", "settings.json"), JSON.stringify({ hooks }));
    writeFileSync(path.join(home, ".gemini", "settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: true } } }));
    writeFileSync(path.join(home, ".gemini", "trustedFolders.json"), JSON.stringify({ [dir]: "TRUST_FOLDER" }));
    return dir;
  }

  function runGemini(dir: string, prompt: string, env: Record<string, string> = {}) {
    return workspace.run(GEMINI!, ["-p", prompt, "--yolo", "--output-format", "json"], dir, { HOME: path.join(dir, "home"), GOOGLE_GEMINI_BASE_URL: fake().url, GEMINI_API_KEY: "fake", ...env }).done;
  }

  test("a blocked rm -rf never runs, and the session is a run of the agent", async () => {
    const dir = project("block");
    const target = path.join(dir, "keep-me");
    mkdirSync(target);
    const out = await runGemini(dir, `bash: rm -rf ${target}`);
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(target)).toBe(true);
    const run = (await listRuns(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).find((r) => r.source === "gemini-cli" && r.agentId === h.agentIds.gates && r.blocked);
    expect(run).toMatchObject({ status: "finished", toolsUsed: ["run_shell_command"] });
    expect(JSON.stringify(fake().requests.map((r) => r.body.contents))).toContain("No rm -rf here");
  }, 120_000);

  test("write_file waits for a person: approved it runs, denied it does not", async () => {
    for (const decision of ["approve", "deny"] as const) {
      const dir = project(`write-${decision}`);
      const done = runGemini(dir, `write ${path.join(dir, "notes.txt")}`);
      const approval = await h.pendingApproval((a) => a.toolName === "write_file");
      expect((await h.decide(approval.id, { decision })).status).toBe(200);
      const out = await done;
      expect(out.code, out.stderr).toBe(0);
      expect(existsSync(path.join(dir, "notes.txt")), decision).toBe(decision === "approve");
    }
  }, 180_000);

  test("in GitHub Actions (GITHUB_SHA) the hooks get no HOOKPLANE_TOKEN: refused until `hookplane login --with-token` stores it in HOME, then decided", async () => {
    const dir = project("ci");
    const home = path.join(dir, "home");
    const ci = { GITHUB_SHA: "3f2a9c1", GITHUB_ENV: path.join(dir, "github-env"), CI: "true" };
    const since = new Date();
    const marker = path.join(dir, "marker");
    // HOOKPLANE_URL and HOOKPLANE_TOKEN are in Gemini's environment (workspace.run), not its hooks'.
    await runGemini(dir, `bash: touch ${marker}`, ci);
    expect(existsSync(marker), "a call went through unguarded").toBe(false);
    expect((await listRuns(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).filter((r) => r.source === "gemini-cli" && r.createdAt >= since)).toEqual([]);

    const login = await runHookplaneCli(["login", "--with-token", "--url", h.server.url], h.operator, { HOME: home, HOOKPLANE_CONFIG_DIR: undefined, XDG_CONFIG_HOME: undefined, HOOKPLANE_TOKEN: undefined });
    expect(login.code, login.stderr).toBe(0);
    const target = path.join(dir, "keep-me");
    mkdirSync(target);
    await runGemini(dir, `bash: rm -rf ${target}`, ci);
    expect(existsSync(target)).toBe(true);
    expect(JSON.stringify(fake().requests.map((r) => r.body.contents))).toContain("No rm -rf here");
    await runGemini(dir, `bash: touch ${marker}`, ci);
    expect(existsSync(marker), "an allowed call did not run").toBe(true);
    const runs = (await listRuns(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).filter((r) => r.source === "gemini-cli" && r.createdAt >= since);
    expect(runs.map((r) => r.blocked).sort()).toEqual([false, true]);
  }, 180_000);

  test("fail closed: with Hookplane down the shell command is blocked", async () => {
    const dir = project("down");
    const marker = path.join(dir, "marker");
    await runGemini(dir, `bash: touch ${marker}`, { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}` });
    expect(existsSync(marker)).toBe(false);
  }, 120_000);
});
