/**
 * The Copilot CLI bridge: payloads recorded from the real GitHub Copilot CLI 1.0.102
 * (test/fixtures/bridges/copilot, see SOURCE.md) replayed through the ingest endpoint, cost from
 * its events.jsonl through `hookplane hook copilot`, and, when the real `copilot` is installed
 * (HOOKPLANE_COPILOT_BIN, or `copilot` on PATH), the CLI itself offline against a local fake of the
 * Responses API (BYOK): a block, an approval decided through the API, and fail closed.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { listApprovals } from "@/db/queries/approvals";
import { createHook } from "@/db/queries/hooks";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRunByExternalSession, listRuns } from "@/db/queries/runs";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { startRouteServer, type RouteServer } from "@/lib/platform/api/route-server";
import { callRoute } from "@/test/api-client";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { stopProcessApprovalWaiter } from "@/lib/features/approvals/approval-waiter-registry";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";
import * as copilotRoute from "@/app/api/v1/ingest/copilot/route";
import * as setupRoute from "@/app/api/v1/setup/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import { runHookplaneCli } from "./hook-cli-runner";
import { startFakeResponses, type FakeResponses } from "./testing/fake-openai-responses";

const FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/bridges/copilot");
const CLI = path.resolve(import.meta.dirname, "../../../bin/hookplane.mjs");
type Payload = Record<string, unknown> & { sessionId: string; hookEventName: string };

function recorded(folder: string): Payload[] {
  const dir = path.join(FIXTURES, folder);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    // Copilot's stdin names no event: the file name does, as the bridge command's --event would.
    .map((f) => ({ ...JSON.parse(readFileSync(path.join(dir, f), "utf8")).stdin, hookEventName: f.replace(/^\d+-|\.json$/g, "") }) as Payload);
}

function findCopilot(): string | undefined {
  const named = process.env.HOOKPLANE_COPILOT_BIN;
  if (named) return existsSync(named) ? named : undefined;
  const which = spawnSync("sh", ["-c", "command -v copilot"], { encoding: "utf8" });
  return which.status === 0 ? which.stdout.trim() : undefined;
}
const COPILOT = findCopilot();

let t: TestDatabase;
let server: RouteServer;
let operator: string;
const agentIds: Record<string, string> = {};

const send = (agent: string, payload: Payload) =>
  callRoute(copilotRoute.POST, { method: "POST", token: operator, headers: { "x-hookplane-agent": agent }, body: payload });

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  const admin = (await callRoute(setupRoute.POST, { method: "POST", body: { email: "admin@example.com", password: "long enough" } })).body.token;
  operator = (await callRoute(tokensRoute.POST, { method: "POST", token: admin, body: { name: "operator", role: "operator" } })).body.token;
  for (const [name, hooks] of Object.entries({
    plain: [],
    gates: [
      { id: "no-rm", event: "tool.pre", matcher: "bash", action: { type: "block", reason: "No rm -rf here", denyIf: "rm -rf" } },
      { id: "ask-touch", event: "tool.pre", matcher: "bash", when: "toolInput.command: /^touch /", action: { type: "approve", timeoutMs: 120_000, onTimeout: "deny" } },
      { id: "tests-first", event: "turn.end", when: "stopHookActive: false", action: { type: "block", reason: "Run the tests before you stop." } },
    ],
  } as Record<string, Record<string, unknown>[]>)) {
    const row = (await createAgent(t.db, { spec: agentSpecSchema.parse({ name }) }))!;
    agentIds[name] = row.id;
    for (const h of hooks) await createHook(t.db, { spec: hookSpecSchema.parse({ ...h, scope: `agent:${row.id}` }), actor: "test" });
  }
  server = await startRouteServer([{ method: "POST", path: "/api/v1/ingest/copilot", handler: copilotRoute.POST }]);
});

afterAll(async () => {
  await server?.close();
  await stopProcessApprovalWaiter();
  await t?.drop();
});

describe("recorded Copilot CLI sessions, replayed", () => {
  test("a shell session is a run with source copilot; every field kept, the rest under copilot", async () => {
    const payloads = recorded("shell-ok");
    for (const p of payloads) expect((await send("plain", p)).body).toEqual({});
    const run = (await getRunByExternalSession(t.db, { agentId: agentIds.plain, externalSessionId: payloads[0].sessionId }))!;
    expect(run).toMatchObject({ source: "copilot", status: "finished", outcome: "completed", reason: "complete", toolsUsed: ["bash"] });
    const events = await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 100 });
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
    const run = (await getRunByExternalSession(t.db, { agentId: agentIds.gates, externalSessionId: "copilot-gates" }))!;
    const events = await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 100 });
    expect(events.at(-1)!.data).toMatchObject({ isError: true, error: "permission denied" });
  });

  test("the CLI sends the event it is told (--event) and the transcript's usage at agentStop", async () => {
    const payloads = recorded("shell-ok").map((p) => ({ ...p, sessionId: "copilot-cost", transcriptPath: path.join(FIXTURES, "transcripts/events.jsonl") }));
    const strip = ({ hookEventName: _e, ...stdin }: Payload) => stdin;
    for (const p of [payloads[0], payloads[5], payloads[5]]) {
      const out = await runHookplaneCli(["hook", "copilot", "--agent", "plain", "--event", p.hookEventName], strip(p), { HOOKPLANE_URL: server.url, HOOKPLANE_TOKEN: operator });
      expect(out.code, out.stderr).toBe(0);
    }
    const run = (await getRunByExternalSession(t.db, { agentId: agentIds.plain, externalSessionId: "copilot-cost" }))!;
    const events = await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 100 });
    expect(events.map((e) => e.type)).toEqual(["session.start", "model.post", "model.post", "turn.end", "turn.end"]);
    expect(run).toMatchObject({ inputTokens: 1800, outputTokens: 80, cachedTokens: 200 });
    const missing = await runHookplaneCli(["hook", "copilot", "--agent", "plain"], strip(payloads[2]), { HOOKPLANE_URL: server.url, HOOKPLANE_TOKEN: operator });
    expect(missing.stderr).toMatch(/name the Copilot CLI event \(--event preToolUse, ...\)/);
  });

  test("no answer on preToolUse: a deny in JSON (Copilot's way to refuse)", async () => {
    const pre = recorded("shell-ok")[2];
    const { hookEventName: _e, ...stdin } = pre;
    const out = await runHookplaneCli(["hook", "copilot", "--agent", "plain", "--event", "preToolUse"], stdin, { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}`, HOOKPLANE_TOKEN: operator });
    expect(out.code).toBe(0);
    expect(out.json()).toEqual({ permissionDecision: "deny", permissionDecisionReason: expect.stringMatching(/ECONNREFUSED — blocking because --fail-open is not set/) });
  });
});

describe.skipIf(!COPILOT)(COPILOT ? "the real Copilot CLI" : "Copilot CLI not installed: set HOOKPLANE_COPILOT_BIN to its `copilot` (npm i @github/copilot) to run these", () => {
  let fake: FakeResponses;
  let work: string;
  let binDir: string;

  beforeAll(async () => {
    fake = await startFakeResponses();
    work = mkdtempSync(path.join(tmpdir(), "hp-copilot-e2e-"));
    binDir = path.join(work, "bin");
    mkdirSync(binDir);
    writeFileSync(path.join(binDir, "hookplane"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(path.join(binDir, "hookplane"), 0o755);
  });
  afterAll(async () => fake?.close());

  function project(name: string): string {
    const dir = path.join(work, name);
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
    const child = spawn(COPILOT!, ["-p", prompt], {
      cwd: dir,
      env: {
        ...process.env,
        PATH: `${binDir}:${process.env.PATH}`,
        HOME: home,
        COPILOT_HOME: home,
        COPILOT_OFFLINE: "true",
        COPILOT_PROVIDER_BASE_URL: `${fake.url}/v1`,
        COPILOT_PROVIDER_WIRE_API: "responses",
        COPILOT_PROVIDER_API_KEY: "x",
        COPILOT_MODEL: "fake-model",
        COPILOT_ALLOW_ALL: "true",
        COPILOT_AUTO_UPDATE: "false",
        HOOKPLANE_URL: server.url,
        HOOKPLANE_TOKEN: operator,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    return new Promise<{ code: number | null; output: string }>((resolve) => child.on("close", (code) => resolve({ code, output })));
  }

  test("a blocked rm -rf never runs; the session is a run of the agent", async () => {
    const dir = project("block");
    const target = path.join(dir, "keep-me");
    mkdirSync(target);
    const out = await runCopilot(dir, `bash: rm -rf ${target}`);
    expect(out.code, out.output).toBe(0);
    expect(existsSync(target)).toBe(true);
    const run = (await listRuns(t.db, { limit: 200 })).find((r) => r.source === "copilot" && r.blocked);
    expect(run).toMatchObject({ agentId: agentIds.gates, toolsUsed: ["bash"] });
    expect(JSON.stringify(fake.requests.map((r) => r.body.input))).toContain("No rm -rf here");
  }, 120_000);

  test("a command waits for a person: approved it runs, denied it does not", async () => {
    for (const decision of ["approve", "deny"] as const) {
      const dir = project(`touch-${decision}`);
      const marker = path.join(dir, "approved");
      const done = runCopilot(dir, `bash: touch ${marker}`);
      let approval: { id: string } | undefined;
      await expect
        .poll(async () => (approval = (await listApprovals(t.db, { status: "pending", limit: 50 })).find((a) => JSON.stringify(a.toolInput).includes(marker))), { timeout: 60_000, interval: 100 })
        .toBeTruthy();
      expect((await callRoute(decisionRoute.POST, { method: "POST", token: operator, params: { id: approval!.id }, body: { decision } })).status).toBe(200);
      const out = await done;
      expect(out.code, out.output).toBe(0);
      expect(existsSync(marker), decision).toBe(decision === "approve");
    }
  }, 180_000);

  test("fail closed: with Hookplane down the command is blocked", async () => {
    const dir = project("down");
    const marker = path.join(dir, "marker");
    const out = await runCopilot(dir, `bash: touch ${marker}`, { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}` });
    expect(existsSync(marker), out.output).toBe(false);
  }, 120_000);
});
