/**
 * The bridged hook path under a team's load, on the real production server (`npm start` on the
 * built tree; PostgreSQL with a pool of 10 connections when DATABASE_URL is set, else the embedded
 * PGlite on disk, here on the process's thread, HOOKPLANE_PGLITE_THREAD=0, while the other server
 * tests and the e2e suite serve it on its own, the default: db/pglite-thread.ts): 40 Claude Code
 * sessions at once, each SessionStart, 10 tool calls (PreToolUse, PostToolUse unless denied; a
 * guard denies one in five), SessionEnd, straight to the ingest
 * endpoint as the `http` hook type sends them (on PostgreSQL, over two web processes: each call of a
 * session goes to the other one than the last); meanwhile runs are started and read through the API
 * and WebSocket subscribers follow the stream. No answer is a 5xx (issue 26: on PostgreSQL most were,
 * `prepared statement "hp_statement_1" does not exist`), every decision is right, and once the
 * server has stopped the database holds exactly the record: one run per session, seqs gapless, every
 * event and denial once, one ledger row per call for the guard, pointing at its call. A hook call
 * whose body streams past the cap is a 413 that closes its connection, and leaves no run.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import WebSocket from "ws";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openDatabase, type DbHandle } from "@/db/client";
import { CREDENTIAL_TTL_MS } from "@/db/queries/token-cache";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { freePort } from "@/test/free-port";
import { assertBuilt } from "@/test/real-server";

const SESSIONS = 40;
const CALLS = 10;
let dataDir: string;
let pg: TestDatabase | undefined;
/** One web process on PGlite (it is single-process), two on PostgreSQL. */
const servers: { child: ChildProcess; base: string }[] = [];
let output = "";
const agent = new Agent({ keepAlive: true, maxSockets: 200 });

function startServer(port: number): ChildProcess {
  const { NODE_ENV: _, ...inherited } = process.env;
  // The build is the sources' (assertBuilt): npm start serves it and never builds under the other test files' servers.
  const env = { ...inherited, PORT: String(port), LOG_LEVEL: "warn", HOOKPLANE_DB_POOL: "10", HOOKPLANE_DATA_DIR: dataDir, HOOKPLANE_SKIP_BUILD: "1" } as Record<string, string | undefined>;
  if (pg) env.DATABASE_URL = pg.databaseUrl;
  else {
    delete env.DATABASE_URL;
    env.HOOKPLANE_PGLITE_THREAD = "0";
  }
  const child = spawn("npm", ["start"], { env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return child;
}

async function stopServers() {
  await Promise.all(
    servers.map(async ({ child }) => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }),
  );
}

type Answer = { status: number; body: any };

function call(method: string, url: string, token: string, body?: unknown, headers: Record<string, string> = {}, base = servers[0].base): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(`${base}${url}`, {
      method,
      agent,
      headers: { authorization: `Bearer ${token}`, ...(data && { "content-type": "application/json", "content-length": Buffer.byteLength(data) }), ...headers },
    }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on("error", reject);
    req.end(data);
  });
}

beforeAll(async () => {
  assertBuilt();
  dataDir = mkdtempSync(path.join(tmpdir(), "hookplane-ingest-load-"));
  if (process.env.DATABASE_URL) pg = await createTestDatabase();
  // The second process starts once the first has migrated the database.
  for (let i = 0; i < (pg ? 2 : 1); i++) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = startServer(port);
    servers.push({ child, base });
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start:\n${output}`);
      if (await fetch(`${base}/api/health`).then((r) => r.ok, () => false)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}, 180_000);

afterAll(async () => {
  await stopServers();
  agent.destroy();
  await pg?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test("40 sessions at once with runs, reads and stream subscribers: no 5xx, every decision right, the record exact", async () => {
  const setup = await call("POST", "/api/v1/setup", "", { email: "lead@example.com", password: "correct horse battery" });
  expect(setup.status).toBe(201);
  const admin: string = setup.body.token;
  const operator: string = (await call("POST", "/api/v1/tokens", admin, { name: "bridge", role: "operator" })).body.token;
  expect((await call("POST", "/api/v1/agents", admin, { name: "dev", model: "scripted", tools: [] })).status).toBe(201);
  const hook = await call("POST", "/api/v1/hooks", admin, {
    scope: "agent:dev",
    id: "no-prod",
    name: "No prod",
    event: "tool.pre",
    matcher: "Bash",
    action: { type: "block", reason: "prod is off-limits", denyIf: "/srv/prod" },
  });
  expect(hook.status).toBe(201);

  // Stream subscribers: every session's run shows up on the runs topic while the load goes on.
  const sockets = await Promise.all(
    Array.from({ length: 4 }, () => new Promise<{ socket: WebSocket; seen: Set<string> }>((resolve, reject) => {
      const socket = new WebSocket(`${servers[0].base.replace("http", "ws")}/api/ws?token=${admin}`);
      const seen = new Set<string>();
      socket.on("message", (raw) => {
        const message = JSON.parse(raw.toString());
        if (message.type === "hello") socket.send(JSON.stringify({ type: "subscribe", topic: "runs" }));
        if (message.type === "subscribed") resolve({ socket, seen });
        if (message.type === "run") seen.add(message.run.id);
      });
      socket.on("error", reject);
    })),
  );

  const statuses: number[] = [];
  const wrong: string[] = [];
  let sent = 0;
  const hookCall = async (body: Record<string, unknown>) => {
    const { base } = servers[sent++ % servers.length];
    const res = await call("POST", "/api/v1/ingest/claude-code", operator, body, { "x-hookplane-agent": "dev" }, base);
    statuses.push(res.status);
    return res;
  };
  const session = async (i: number) => {
    const id = `load-${i}`;
    const common = { session_id: id, cwd: "/home/dev/project", transcript_path: "/tmp/t.jsonl", permission_mode: "default" };
    await hookCall({ ...common, hook_event_name: "SessionStart", source: "startup" });
    for (let c = 0; c < CALLS; c++) {
      const prod = c % 5 === 4;
      const tool = { tool_name: "Bash", tool_input: { command: prod ? `cat /srv/prod/secret-${c}` : `echo ${i}-${c}` }, tool_use_id: `toolu_${i}_${c}` };
      const pre = await hookCall({ ...common, hook_event_name: "PreToolUse", ...tool });
      const denied = pre.body?.hookSpecificOutput?.permissionDecision === "deny";
      if (denied !== prod) wrong.push(`${id} call ${c}: ${JSON.stringify(pre.body)}`);
      if (!denied) await hookCall({ ...common, hook_event_name: "PostToolUse", ...tool, tool_response: { stdout: "ok", stderr: "", interrupted: false } });
    }
    await hookCall({ ...common, hook_event_name: "SessionEnd", reason: "other" });
  };
  // Beside the sessions: runs started and read, agents listed, through Next's routes.
  const other: number[] = [];
  const api = async () => {
    for (let k = 0; k < 5; k++) {
      const started = await call("POST", "/api/v1/runs", operator, { agent: "coding-agent", prompt: `fix the build ${k}` });
      other.push(started.status);
      const [events, list, agents] = await Promise.all([
        call("GET", `/api/v1/runs/${started.body?.id}/events?after=0`, operator),
        call("GET", "/api/v1/runs?limit=20", operator),
        call("GET", "/api/v1/agents", operator),
      ]);
      other.push(events.status, list.status, agents.status);
    }
  };
  await Promise.all([...Array.from({ length: SESSIONS }, (_, i) => session(i)), api(), api()]);

  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  expect(statuses).toHaveLength(SESSIONS * (2 + CALLS + (CALLS - CALLS / 5)));
  expect(wrong).toEqual([]);
  expect(other.filter((s) => s >= 500)).toEqual([]);
  expect(other.filter((s) => s >= 300)).toEqual([]);
  for (const { socket, seen } of sockets) {
    expect(seen.size).toBeGreaterThanOrEqual(SESSIONS);
    socket.close();
  }
  expect(output).not.toMatch(/prepared statement|unhandled API error/);

  // A hook call's body is read once, on the short way, and counted against the cap as it streams:
  // one past it (no length declared) is a 413 that closes the connection, and nothing is recorded.
  const tooLarge = await new Promise<{ status?: number; connection?: string; code?: string }>((resolve) => {
    const req = request(`${servers[0].base}/api/v1/ingest/claude-code`, {
      method: "POST",
      agent: false,
      headers: { authorization: `Bearer ${operator}`, "x-hookplane-agent": "dev", "content-type": "application/json", "transfer-encoding": "chunked" },
    }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d)).on("end", () => resolve({ status: res.statusCode, connection: res.headers.connection, code: JSON.parse(text).error?.code }));
    });
    req.on("error", () => resolve({}));
    req.write(`{"session_id":"too-large","hook_event_name":"SessionStart","cwd":"`);
    const piece = "a".repeat(64 * 1024);
    let left = 40; // 2.5 MB, past the 1 MB cap
    const pump = () => {
      while (left-- > 0) if (!req.write(piece)) return void req.once("drain", pump);
      req.end(`"}`);
    };
    pump();
  });
  expect(tooLarge).toEqual({ status: 413, connection: "close", code: "payload_too_large" });

  // The operator's token revoked through the first process: the last one refuses it too, within
  // the bound of its credential cache (at once when it hears the access notice).
  const tokens = (await call("GET", "/api/v1/tokens", admin)).body.items as { id: string; name: string }[];
  const bridge = tokens.find((token) => token.name === "bridge")!;
  expect((await call("DELETE", `/api/v1/tokens/${bridge.id}`, admin)).status).toBeLessThan(300);
  const last = servers.at(-1)!.base;
  const refusedBy = Date.now() + CREDENTIAL_TTL_MS + 1_000;
  const attempt = () => call("POST", "/api/v1/ingest/claude-code", operator, { session_id: "after-revoke", hook_event_name: "SessionStart" }, { "x-hookplane-agent": "dev" }, last);
  let refused = await attempt();
  while (refused.status === 200 && Date.now() < refusedBy) {
    await new Promise((r) => setTimeout(r, 50));
    refused = await attempt();
  }
  expect(refused.status).toBe(401);

  // The record, read from the database itself once the servers are gone.
  await stopServers();
  const db: DbHandle = pg ? await openDatabase({ databaseUrl: pg.databaseUrl }) : await openDatabase({ dataDir: path.join(dataDir, "pgdata") });
  try {
    const rows = async <T,>(text: string, params?: unknown[]) => (await db.execute(text, params)).rows as T[];
    const runs = await rows<{ id: string; session: string; status: string; outcome: string; blocked: boolean; last_seq: number; created_by: string }>(
      "select id, external_session_id as session, status, outcome, blocked, last_seq, created_by from runs where external_session_id like 'load-%' order by external_session_id",
    );
    expect(runs).toHaveLength(SESSIONS);
    expect(await rows("select id from runs where external_session_id = 'too-large'")).toEqual([]);
    expect(new Set(runs.map((r) => r.session)).size).toBe(SESSIONS);
    const denials = CALLS / 5;
    for (const run of runs) {
      expect(run).toMatchObject({ status: "finished", outcome: "completed", blocked: true, created_by: "token:bridge" });
      const events = await rows<{ seq: number; type: string; call: string | null }>("select seq, type, data->>'toolCallId' as call from run_events where run_id = $1 order by seq", [run.id]);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: events.length }, (_, k) => k + 1));
      expect(run.last_seq).toBe(events.length);
      const count = (type: string) => events.filter((e) => e.type === type).length;
      expect([count("session.start"), count("tool.pre"), count("tool.post"), count("loop.tool_denied"), count("session.end")]).toEqual([1, CALLS, CALLS - denials, denials, 1]);
      expect(new Set(events.filter((e) => e.type === "tool.pre").map((e) => e.call)).size).toBe(CALLS);
      const ledger = await rows<{ event_seq: number; verdict: string }>("select event_seq, verdict from hook_invocations where run_id = $1 and hook_key = 'no-prod' order by event_seq", [run.id]);
      const pres = events.filter((e) => e.type === "tool.pre");
      expect(ledger.map((l) => l.event_seq)).toEqual(pres.map((e) => e.seq));
      expect(ledger.filter((l) => l.verdict === "block")).toHaveLength(denials);
      // Each denial right after its call, naming it.
      for (const blocked of ledger.filter((l) => l.verdict === "block")) {
        const pre = events.find((e) => e.seq === blocked.event_seq)!;
        expect(events.find((e) => e.seq === blocked.event_seq + 1)).toMatchObject({ type: "loop.tool_denied", call: pre.call });
      }
    }
  } finally {
    await db.close();
  }
}, 240_000);
