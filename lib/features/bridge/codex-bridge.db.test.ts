/**
 * The Codex bridge: payloads recorded from the real Codex CLI 0.169.0 (test/fixtures/bridges/codex,
 * see SOURCE.md) replayed through the ingest endpoint, cost from its rollout file through the
 * `hookplane hook codex` CLI, and, when the real `codex` is installed (HOOKPLANE_CODEX_BIN, or
 * `codex` on PATH), the CLI itself against a local fake of the Responses API: a block, an approval
 * decided through the API, and fail closed with the server down.
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
import * as codexRoute from "@/app/api/v1/ingest/codex/route";
import * as setupRoute from "@/app/api/v1/setup/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import { runHookplaneCli } from "./hook-cli-runner";
import { startFakeResponses, type FakeResponses } from "./testing/fake-openai-responses";

const FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/bridges/codex");
const CLI = path.resolve(import.meta.dirname, "../../../bin/hookplane.mjs");
type Payload = Record<string, unknown> & { session_id: string; hook_event_name: string };

function recorded(folder: string): Payload[] {
  const dir = path.join(FIXTURES, folder);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")).stdin as Payload);
}

function findCodex(): string | undefined {
  const named = process.env.HOOKPLANE_CODEX_BIN;
  if (named) return existsSync(named) ? named : undefined;
  const which = spawnSync("sh", ["-c", "command -v codex"], { encoding: "utf8" });
  return which.status === 0 ? which.stdout.trim() : undefined;
}
const CODEX = findCodex();

let t: TestDatabase;
let server: RouteServer;
let operator: string;
const agentIds: Record<string, string> = {};

const send = (agent: string, payload: Payload) =>
  callRoute(codexRoute.POST, { method: "POST", token: operator, headers: { "x-hookplane-agent": agent }, body: payload });

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
      { id: "no-rm", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "No rm -rf here", denyIf: "rm -rf" } },
      { id: "ask-touch", event: "tool.pre", matcher: "Bash", when: "toolInput.command: /^touch /", action: { type: "approve", timeoutMs: 120_000, onTimeout: "deny" } },
      { id: "note", event: "tool.pre", matcher: "Bash", action: { type: "context", text: "Mind the shell." } },
      { id: "tests-first", event: "turn.end", when: "stopHookActive: false", action: { type: "block", reason: "Run the tests before you stop." } },
    ],
  } as Record<string, Record<string, unknown>[]>)) {
    const row = (await createAgent(t.db, { spec: agentSpecSchema.parse({ name }) }))!;
    agentIds[name] = row.id;
    for (const h of hooks) await createHook(t.db, { spec: hookSpecSchema.parse({ ...h, scope: `agent:${row.id}` }), actor: "test" });
  }
  server = await startRouteServer([{ method: "POST", path: "/api/v1/ingest/codex", handler: codexRoute.POST }]);
});

afterAll(async () => {
  await server?.close();
  await stopProcessApprovalWaiter();
  await t?.drop();
});

describe("recorded Codex sessions, replayed", () => {
  test("a shell session is a run with source codex; every field kept, the rest under codex", async () => {
    const payloads = recorded("shell-ok");
    for (const p of payloads) expect((await send("plain", p)).body).toEqual({});
    const run = (await getRunByExternalSession(t.db, { agentId: agentIds.plain, externalSessionId: payloads[0].session_id }))!;
    expect(run).toMatchObject({ source: "codex", status: "finished", outcome: "completed", reason: "other", toolsUsed: ["Bash"] });
    const events = await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 100 });
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
      const out = await runHookplaneCli(["hook", "codex", "--agent", "plain"], p, { HOOKPLANE_URL: server.url, HOOKPLANE_TOKEN: operator });
      expect(out.code, out.stderr).toBe(0);
    }
    const run = (await getRunByExternalSession(t.db, { agentId: agentIds.plain, externalSessionId: "codex-cost" }))!;
    const posts = (await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 100 })).filter((e) => e.type === "model.post");
    expect(posts.map((e) => [e.data.model, e.data.inputTokens, e.data.outputTokens, e.data.cachedTokens])).toEqual([
      ["openai:fake-model", 900, 40, 100],
      ["openai:fake-model", 900, 40, 100],
    ]);
    expect(run).toMatchObject({ inputTokens: 1800, outputTokens: 80, cachedTokens: 200 });
  });
});

describe.skipIf(!CODEX)(CODEX ? "the real Codex CLI" : "Codex CLI not installed: set HOOKPLANE_CODEX_BIN to its `codex` (npm i @openai/codex) to run these", () => {
  let fake: FakeResponses;
  let work: string;
  let binDir: string;

  beforeAll(async () => {
    fake = await startFakeResponses();
    work = mkdtempSync(path.join(tmpdir(), "hp-codex-e2e-"));
    binDir = path.join(work, "bin");
    mkdirSync(binDir);
    writeFileSync(path.join(binDir, "hookplane"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(path.join(binDir, "hookplane"), 0o755);
  });
  afterAll(async () => fake?.close());

  function project(name: string): { dir: string; home: string } {
    const dir = path.join(work, name);
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
        `base_url = "${fake.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "FAKE_OPENAI_KEY"',
        `[projects."${dir}"]`,
        'trust_level = "trusted"',
      ].join("\n"),
    );
    spawnSync("git", ["init", "-q"], { cwd: dir });
    return { dir, home };
  }

  function runCodex(where: { dir: string; home: string }, prompt: string, env: Record<string, string> = {}) {
    const child = spawn(CODEX!, ["exec", "--dangerously-bypass-hook-trust", prompt], {
      cwd: where.dir,
      env: { ...process.env, PATH: `${binDir}:${process.env.PATH}`, HOME: where.home, CODEX_HOME: where.home, FAKE_OPENAI_KEY: "x", HOOKPLANE_URL: server.url, HOOKPLANE_TOKEN: operator, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    return new Promise<{ code: number | null; output: string }>((resolve) => child.on("close", (code) => resolve({ code, output })));
  }

  test("a blocked rm -rf never runs; the session is a run of the agent", async () => {
    const where = project("block");
    const target = path.join(where.dir, "keep-me");
    mkdirSync(target);
    const out = await runCodex(where, `bash: rm -rf ${target}`);
    expect(out.code, out.output).toBe(0);
    expect(existsSync(target)).toBe(true);
    const run = (await listRuns(t.db, { limit: 200 })).find((r) => r.source === "codex" && r.blocked);
    expect(run).toMatchObject({ agentId: agentIds.gates, toolsUsed: ["Bash"] });
    expect(JSON.stringify(fake.requests.map((r) => r.body.input))).toContain("No rm -rf here");
  }, 120_000);

  test("a command waits for a person: approved it runs, denied it does not", async () => {
    for (const decision of ["approve", "deny"] as const) {
      const where = project(`touch-${decision}`);
      const marker = path.join(where.dir, "approved");
      const done = runCodex(where, `bash: touch ${marker}`);
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
    const where = project("down");
    const marker = path.join(where.dir, "marker");
    const out = await runCodex(where, `bash: echo hi > ${marker}`, { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}` });
    expect(existsSync(marker), out.output).toBe(false);
    expect(out.output).toMatch(/ECONNREFUSED/);
  }, 120_000);
});
