/**
 * npm run bench:ingest — the bridged hook path of coding agents under concurrency: N Claude Code
 * sessions at once, each posting its hooks as Claude Code's `http` hook type does (POST
 * /api/v1/ingest/claude-code, an operator token, X-Hookplane-Agent, one kept-alive node:http
 * Agent for the whole run), against the real production server (`npm run build` first):
 *   - embedded PGlite (one web process: PGlite is single-process), fsync on as shipped;
 *   - PostgreSQL, a fresh database on DATABASE_URL's server (default the local test server), with
 *     one web process, then (another fresh database) two web processes on two ports, session i
 *     talking to process i % 2.
 * A session is SessionStart, BENCH_CALLS tool calls (PreToolUse, then PostToolUse unless the call
 * was denied), SessionEnd, each awaited before the next. The agent has one guard hook, `block`
 * with denyIf /srv/prod, and one call in ten asks for /srv/prod: its answer must be a deny, the
 * others must not be. Levels of BENCH_SESSIONS concurrent sessions (default 1,10,50,200), each run
 * first against a bare node:http server (bench/bare-server.mjs: parse the body, answer {}) and then
 * against Hookplane, so both see the same machine load; then a paced scenario: 200 sessions each
 * sending one call every 2 s (starts staggered over the 2 s), for its p99.
 * Each deployment starts with a warm-up level of 5 sessions (shown, not in the targets): a fresh
 * process pays for JIT and caches first. An error is a non-200, a wrong answer, or no answer in
 * 30 s. After each level the database is read back: every session is exactly one finished run, seqs
 * gapless from 1, the events its hooks map to, and one ledger row of the guard per tool.pre, a block
 * on exactly the denied ones (PostgreSQL: SQL; PGlite, which no second process may open: the API).
 * Printed per level: calls/s (calls / wall time), p50/p99, errors, the ratio to bare's calls/s and
 * the load average around it, and the CPU a call costs in the web processes, PostgreSQL's backends
 * and this client (bench/process-cpu.ts: where the ceiling is); then a table and the targets, PASS/FAIL but informational: PostgreSQL
 * at 50 sessions ≥ 40% of bare's calls/s, PGlite ≥ 25%; paced p99 < 25 ms on PostgreSQL; one
 * session's p50 within 5 ms of bare's. Exit 1 only when an answer was wrong or the read-back
 * disagrees.
 *   BENCH_SESSIONS, BENCH_CALLS (default 20), BENCH_DBS (default pglite,postgres), BENCH_PEOPLE=1,
 *   BENCH_PACED_SESSIONS (default 200), BENCH_PACED_CALLS (default 5), DATABASE_URL.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { freshPostgres, stop, summarize, waitForHealth } from "./bench-support";
import { cpuMeter } from "./process-cpu";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PG_SERVER_URL = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";

function positiveInts(name: string, fallback: string): number[] {
  const values = (process.env[name] || fallback).split(",").map((v) => Number(v.trim()));
  if (values.some((v) => !Number.isInteger(v) || v < 1)) throw new Error(`${name}: expected positive integers, got "${process.env[name]}"`);
  return values;
}

const LEVELS = positiveInts("BENCH_SESSIONS", "1,10,50,200");
const [CALLS] = positiveInts("BENCH_CALLS", "20");
const [PACED_SESSIONS] = positiveInts("BENCH_PACED_SESSIONS", "200");
const [PACED_CALLS] = positiveInts("BENCH_PACED_CALLS", "5");
const PACED_INTERVAL_MS = 2000;
/** Sessions of the warm-up level (verified, shown, kept out of the targets): a fresh process's first requests pay for JIT and caches. */
const WARMUP_SESSIONS = 5;
/** An answer later than this is an error; the session goes on, as Claude Code goes on past a failed hook. */
const REQUEST_TIMEOUT_MS = 30_000;
const DBS = (process.env.BENCH_DBS || "pglite,postgres").split(",").map((d) => d.trim());
for (const db of DBS) if (db !== "pglite" && db !== "postgres") throw new Error(`BENCH_DBS: expected pglite and/or postgres, got "${db}"`);

const AGENT = "bench-agent";
const GUARD_ID = "no-prod";
const GUARD_REASON = "prod is off-limits";
const INGEST_PATH = "/api/v1/ingest/claude-code";

type Database = "pglite" | "postgres";
interface Deployment {
  db: Database;
  processes: number;
}
const DEPLOYMENTS: Deployment[] = [
  ...(DBS.includes("pglite") ? [{ db: "pglite" as const, processes: 1 }] : []),
  ...(DBS.includes("postgres") ? [{ db: "postgres" as const, processes: 1 }, { db: "postgres" as const, processes: 2 }] : []),
];
const deploymentName = (d: Deployment) => `${d.db} ×${d.processes}`;

// ---------------------------------------------------------------------------------------------
// What the run started or made: each is released by the finally that owns it, or all at once
// (newest first) when the run is interrupted.

const held = new Set<() => Promise<void>>();

/** Registers `release`; the returned function runs it once and forgets it. */
function hold(release: () => Promise<void> | void): () => Promise<void> {
  let done: Promise<void> | undefined;
  const run = () => {
    held.delete(run);
    return (done ??= Promise.resolve().then(release));
  };
  held.add(run);
  return run;
}

async function releaseAll() {
  for (const release of [...held].reverse()) await release().catch((error) => console.error(error));
}

// Ctrl-C reaches this process twice under `npm run` (from the terminal, and relayed by tsx's
// parent): the first starts the release, the next ones wait for it rather than cut it short.
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    void releaseAll().finally(() => process.exit(130));
  });
}

/** SIGTERM and wait; a process still there after 15 s (a shutdown that hangs) is killed. */
async function stopProcess(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await stop(child);
  clearTimeout(kill);
}

function exited(child: ChildProcess, what: string): Promise<never> {
  return new Promise((_, reject) => child.once("exit", (code, signal) => reject(new Error(`${what} exited (${signal ?? code}) before it was ready`))));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function startBare(): Promise<{ url: string; pid: number }> {
  const child = spawn(process.execPath, [path.join(ROOT, "bench/bare-server.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
  hold(() => stopProcess(child));
  const line = new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));
  return { url: await Promise.race([line, exited(child, "bench/bare-server.mjs")]), pid: child.pid! };
}

/**
 * The deployment's web processes, started one after the other (the first migrates and seeds), as
 * an operator starts the built server; each is checked to run on the database meant.
 */
async function startHookplane(d: Deployment, env: Record<string, string>): Promise<{ urls: string[]; pids: number[]; stop: () => Promise<void> }> {
  const stops: (() => Promise<void>)[] = [];
  const urls: string[] = [];
  const pids: number[] = [];
  try {
    for (let i = 0; i < d.processes; i++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      // BENCH_SERVER_ARGS: node flags for the servers (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
      const nodeArgs = process.env.BENCH_SERVER_ARGS?.split(/\s+/).filter(Boolean) ?? [];
      const child = spawn(process.execPath, [...nodeArgs, "dist/server.mjs"], {
        cwd: ROOT,
        env: { ...process.env, ...env, NODE_ENV: "production", PORT: String(port), HOSTNAME: "127.0.0.1", LOG_LEVEL: "error", HOOKPLANE_WORKER_CONCURRENCY: "0" },
        stdio: ["ignore", "inherit", "inherit"],
      });
      stops.push(hold(() => stopProcess(child)));
      pids.push(child.pid!);
      await Promise.race([waitForHealth(url, 120_000), exited(child, `hookplane on port ${port}`)]);
      const health = (await (await fetch(`${url}/api/health`)).json()) as { db?: string };
      if (health.db !== d.db) throw new Error(`hookplane on port ${port} runs on ${health.db}, not ${d.db}`);
      urls.push(url);
    }
  } catch (error) {
    await Promise.all(stops.map((s) => s()));
    throw error;
  }
  return { urls, pids, stop: async () => void (await Promise.all(stops.map((s) => s()))) };
}

/** One call of the API for setting up and reading back (not measured: fetch's own pool). */
async function api<T>(base: string, method: "GET" | "POST", route: string, token?: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/**
 * BENCH_PEOPLE=1: the calls come from a person's bridge credential instead of an operator token,
 * and the agent has a per-person rule (`when` on actor.email, never matching this person: the
 * cost of asking) and a per-person rate limit high enough never to refuse (the cost of counting,
 * every call, in the database) besides the guard.
 */
const PEOPLE = process.env.BENCH_PEOPLE === "1";

/** The first admin, the bridge's credential, the agent and its hooks, all through the API. */
async function setUp(base: string): Promise<{ admin: string; operator: string }> {
  const { token: admin } = await api<{ token: string }>(base, "POST", "/api/v1/setup", undefined, { email: "bench@example.com", password: "benchmark!" });
  const { token: operator } = PEOPLE
    ? await api<{ token: string }>(base, "POST", "/api/v1/bridge-credentials", admin, { name: "bench machine" })
    : await api<{ token: string }>(base, "POST", "/api/v1/tokens", admin, { name: "bridge", role: "operator" });
  await api(base, "POST", "/api/v1/agents", admin, { name: AGENT, model: "scripted", tools: [] });
  if (PEOPLE) {
    await api(base, "POST", "/api/v1/hooks", admin, {
      scope: `agent:${AGENT}`,
      id: "contractors-no-bash",
      event: "tool.pre",
      matcher: "Bash",
      when: "actor.email: /@contractors\\.example$/",
      action: { type: "block", reason: "contractors do not run Bash" },
    });
    await api(base, "POST", "/api/v1/hooks", admin, {
      scope: `agent:${AGENT}`,
      id: "per-person-limit",
      event: "tool.pre",
      action: { type: "limit", max: 1_000_000, windowMs: 60_000, per: "actor" },
    });
  }
  await api(base, "POST", "/api/v1/hooks", admin, {
    scope: `agent:${AGENT}`,
    id: GUARD_ID,
    name: "No prod",
    event: "tool.pre",
    matcher: "Bash",
    action: { type: "block", reason: GUARD_REASON, denyIf: "/srv/prod" },
  });
  return { admin, operator };
}

// ---------------------------------------------------------------------------------------------
// The sessions: what each sends, and what its run must hold afterwards.

type ClaudeEvent = "SessionStart" | "PreToolUse" | "PostToolUse" | "SessionEnd";

interface PlannedCall {
  event: ClaudeEvent;
  body: string;
  /** A PreToolUse the guard must deny. */
  denied: boolean;
}

interface SessionPlan {
  id: string;
  index: number;
  calls: PlannedCall[];
  toolCalls: number;
  denied: number;
}

/**
 * One Claude Code session. Call k of session i asks for /srv/prod when (i + k) % 10 === 9: one in
 * ten, two of every 20, and staggered by session so short paced sessions get their share. A denied
 * call has no PostToolUse (the tool never ran). The plan follows the expected answers, not the
 * received ones, so the bare server gets exactly the same requests.
 */
function planSession(id: string, index: number, toolCalls: number): SessionPlan {
  const cwd = ROOT;
  // Claude Code keeps a session's transcript in a file named by the session id; the read-back on
  // PGlite finds a run's session by it (the API does not show runs.external_session_id).
  const transcript_path = `/tmp/hookplane-bench/${id}.jsonl`;
  const call = (event: ClaudeEvent, fields: Record<string, unknown>, denied = false): PlannedCall => ({
    event,
    body: JSON.stringify({ session_id: id, hook_event_name: event, ...fields }),
    denied,
  });
  const calls = [call("SessionStart", { source: "startup", cwd, transcript_path })];
  let denied = 0;
  for (let k = 0; k < toolCalls; k++) {
    const deny = (index + k) % 10 === 9;
    const tool = {
      tool_name: "Bash",
      tool_input: { command: deny ? "cat /srv/prod/secrets" : `echo ${k}` },
      tool_use_id: `toolu_bench_${k}`,
      cwd,
      transcript_path,
      permission_mode: "default",
    };
    calls.push(call("PreToolUse", tool, deny));
    if (deny) denied++;
    else calls.push(call("PostToolUse", { ...tool, tool_response: { stdout: "ok", stderr: "", interrupted: false } }));
  }
  calls.push(call("SessionEnd", { reason: "other" }));
  return { id, index, calls, toolCalls, denied };
}

function planLevel(tag: string, sessions: number, toolCalls: number): SessionPlan[] {
  const suffix = randomBytes(3).toString("hex");
  return Array.from({ length: sessions }, (_, i) => planSession(`bench-${tag}-${i}-${suffix}`, i, toolCalls));
}

/**
 * The events a session's run must hold, in seq order, as lib/features/bridge records Claude Code's
 * hooks (claudeSessionEvent, then ingestSessionEvent): SessionStart with source startup is
 * session.start; PreToolUse is tool.pre, followed by loop.tool_denied when a hook blocked it;
 * PostToolUse is tool.post; SessionEnd is session.end, which finishes the run (reason "other":
 * outcome completed, sessionEndOutcome).
 */
function expectedEvents(plan: SessionPlan): string[] {
  return plan.calls.flatMap((c) => {
    switch (c.event) {
      case "SessionStart":
        return ["session.start"];
      case "PreToolUse":
        return c.denied ? ["tool.pre", "loop.tool_denied"] : ["tool.pre"];
      case "PostToolUse":
        return ["tool.post"];
      case "SessionEnd":
        return ["session.end"];
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The load.

/** One Agent for the whole run, as one Claude Code keeps its connection; a socket per session at most. */
const keepAlive = new HttpAgent({ keepAlive: true, maxSockets: Math.max(...LEVELS, PACED_SESSIONS, WARMUP_SESSIONS) + 8 });

interface Answer {
  status: number;
  body: string;
  ms: number;
}

function post(url: URL, body: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        agent: keepAlive,
        headers: { ...headers, "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - started }));
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer in ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on("error", reject);
    req.end(body);
  });
}

interface Target {
  /** Session i talks to urls[i % urls.length]. */
  urls: URL[];
  headers: Record<string, string>;
  /** Why an answer is wrong, or undefined. */
  check: (call: PlannedCall, answer: Answer) => string | undefined;
}

function bareTarget(url: string): Target {
  return {
    urls: [new URL(INGEST_PATH, url)],
    headers: { "content-type": "application/json" },
    check: (_call, answer) => (answer.status === 200 && answer.body === "{}" ? undefined : `HTTP ${answer.status} ${answer.body.slice(0, 200)}`),
  };
}

/** Claude Code's reading of an answer (claudeHookOutput): a deny is hookSpecificOutput.permissionDecision. */
function checkClaudeAnswer(call: PlannedCall, answer: Answer): string | undefined {
  if (answer.status !== 200) return `HTTP ${answer.status} ${answer.body.slice(0, 300)}`;
  let output: { continue?: boolean; decision?: string; hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
  try {
    output = JSON.parse(answer.body);
  } catch {
    return `not JSON: ${answer.body.slice(0, 200)}`;
  }
  const specific = output.hookSpecificOutput;
  if (call.denied) {
    if (specific?.permissionDecision !== "deny" || specific.permissionDecisionReason !== GUARD_REASON) return `expected the guard's deny, got ${answer.body}`;
  } else if (specific?.permissionDecision === "deny" || output.continue === false || output.decision === "block") {
    return `expected no objection, got ${answer.body}`;
  }
  return undefined;
}

function hookplaneTarget(urls: string[], operatorToken: string): Target {
  return {
    urls: urls.map((u) => new URL(INGEST_PATH, u)),
    headers: { "content-type": "application/json", authorization: `Bearer ${operatorToken}`, "x-hookplane-agent": AGENT },
    check: checkClaudeAnswer,
  };
}

interface Measured {
  calls: number;
  wallMs: number;
  latencies: number[];
  errors: string[];
}

const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - performance.now())));

/**
 * All sessions at once, each awaiting every answer before its next call. Paced: session i starts
 * at i/N of the interval and sends its call k at start + k × interval (at once if the previous
 * answer came later than that).
 */
async function runSessions(target: Target, plans: SessionPlan[], pacedIntervalMs?: number): Promise<Measured> {
  // New sessions are new Claude Code processes: they open connections of their own rather than
  // take sockets that sat idle through the last read-back, which the server may be closing (its
  // keep-alive timeout) just as a request goes out on them.
  for (const sockets of Object.values(keepAlive.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  const measured: Measured = { calls: 0, wallMs: 0, latencies: [], errors: [] };
  const began = performance.now();
  await Promise.all(
    plans.map(async (plan) => {
      const url = target.urls[plan.index % target.urls.length];
      const start = began + (pacedIntervalMs ? (plan.index * pacedIntervalMs) / plans.length : 0);
      for (const [k, call] of plan.calls.entries()) {
        if (pacedIntervalMs) await sleepUntil(start + k * pacedIntervalMs);
        measured.calls++;
        try {
          const answer = await post(url, call.body, target.headers);
          measured.latencies.push(answer.ms);
          const wrong = target.check(call, answer);
          if (wrong) measured.errors.push(`${plan.id} ${call.event} (call ${k}): ${wrong}`);
        } catch (error) {
          measured.errors.push(`${plan.id} ${call.event} (call ${k}): ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }),
  );
  measured.wallMs = performance.now() - began;
  return measured;
}

// ---------------------------------------------------------------------------------------------
// The read-back.

interface RecordedRun {
  id: string;
  /** The Claude Code session the run records, as far as the source can tell. */
  sessionId: string | undefined;
  status: string;
  outcome: string | null;
  events: { seq: number; type: string; data: Record<string, unknown> }[];
  ledger: { hookKey: string; event: string; eventSeq: number | null; matched: boolean; verdict: string | null }[];
}

interface RunSource {
  /** The runs of the bench agent not returned before (so a level's, whatever made them). */
  newRuns(): Promise<RecordedRun[]>;
}

function byRun<T extends { runId: string }>(rows: readonly T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const list = map.get(row.runId);
    if (list) list.push(row);
    else map.set(row.runId, [row]);
  }
  return map;
}

/** PostgreSQL: the tables themselves. */
function sqlSource(sql: postgres.Sql): RunSource {
  const seen = new Set<string>();
  return {
    async newRuns() {
      const all = await sql<{ id: string; externalSessionId: string | null; status: string; outcome: string | null }[]>`
        select r.id, r.external_session_id as "externalSessionId", r.status, r.outcome
          from runs r join agents a on a.id = r.agent_id
         where a.name = ${AGENT}`;
      const rows = all.filter((r) => !seen.has(r.id));
      if (rows.length === 0) return [];
      for (const r of rows) seen.add(r.id);
      const ids = rows.map((r) => r.id);
      const events = await sql<{ runId: string; seq: number; type: string; data: Record<string, unknown> }[]>`
        select run_id as "runId", seq, type, data from run_events where run_id in ${sql(ids)} order by run_id, seq`;
      const ledger = await sql<({ runId: string } & RecordedRun["ledger"][number])[]>`
        select run_id as "runId", hook_key as "hookKey", event, event_seq as "eventSeq", matched, verdict
          from hook_invocations where run_id in ${sql(ids)} order by id`;
      const eventsOf = byRun(events);
      const ledgerOf = byRun(ledger);
      return rows.map((r) => ({
        id: r.id,
        sessionId: r.externalSessionId ?? undefined,
        status: r.status,
        outcome: r.outcome,
        events: eventsOf.get(r.id) ?? [],
        ledger: ledgerOf.get(r.id) ?? [],
      }));
    },
  };
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const work = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, work));
  return out;
}

/**
 * PGlite: the API, as an admin (the server holds the data folder, no other process may open it).
 * The API does not show a run's external session id: a run's session is read from its
 * session.start, whose claudeCode.transcript_path names it (planSession).
 */
function apiSource(base: string, token: string): RunSource {
  const seen = new Set<string>();
  const get = <T>(route: string) => api<T>(base, "GET", route, token);
  return {
    async newRuns() {
      type RunItem = { id: string; status: string; outcome?: string };
      const rows: RunItem[] = [];
      let cursor: string | null = null;
      do {
        const page: { items: RunItem[]; nextCursor: string | null } = await get(`/api/v1/runs?agent=${AGENT}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        rows.push(...page.items.filter((r) => !seen.has(r.id)));
        cursor = page.nextCursor;
      } while (cursor);
      for (const r of rows) seen.add(r.id);
      return mapLimit(rows, 8, async (r): Promise<RecordedRun> => {
        const events: RecordedRun["events"] = [];
        for (let after: number | null = 0; after !== null; ) {
          const page: { items: RecordedRun["events"]; nextAfter: number | null } = await get(`/api/v1/runs/${r.id}/events?after=${after}&limit=1000`);
          events.push(...page.items);
          after = page.nextAfter;
        }
        const { items: ledger } = await get<{ items: RecordedRun["ledger"] }>(`/api/v1/runs/${r.id}/hooks`);
        const start = events.find((e) => e.type === "session.start")?.data.claudeCode as { transcript_path?: string } | undefined;
        return {
          id: r.id,
          sessionId: start?.transcript_path ? path.basename(start.transcript_path, ".jsonl") : undefined,
          status: r.status,
          outcome: r.outcome ?? null,
          events,
          ledger,
        };
      });
    },
  };
}

/** "session.start ×1, tool.pre ×20, ...", in the order of `order` (then any other type). */
function countTypes(types: string[], order: string[]): string {
  const counts = new Map<string, number>(order.map((t) => [t, 0]));
  for (const t of types) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts].map(([t, n]) => `${t} ×${n}`).join(", ");
}

function checkRun(plan: SessionPlan, run: RecordedRun): string[] {
  const problems: string[] = [];
  const where = `${plan.id} (run ${run.id})`;
  if (run.status !== "finished" || run.outcome !== "completed") problems.push(`${where}: ${run.status}/${run.outcome}, expected finished/completed`);
  const gap = run.events.findIndex((e, i) => e.seq !== i + 1);
  if (gap >= 0) problems.push(`${where}: seqs not gapless from 1 (position ${gap + 1} holds seq ${run.events[gap].seq})`);
  const expected = expectedEvents(plan);
  const got = run.events.map((e) => e.type);
  if (got.join() !== expected.join()) {
    const at = Array.from({ length: Math.max(got.length, expected.length) }, (_, i) => i).find((i) => got[i] !== expected[i])!;
    const [gotCounts, expectedCounts] = [countTypes(got, expected), countTypes(expected, expected)];
    const first = `#${at + 1} is ${got[at] ?? "missing"}, expected ${expected[at] ?? "nothing"}`;
    problems.push(`${where}: ${gotCounts === expectedCounts ? `the events it should, out of order: ${first}` : `events ${gotCounts}; expected ${expectedCounts} (${first})`}`);
  }
  // The guard's ledger: one row per tool.pre, on that event's seq, a block exactly where the command asked for /srv/prod.
  const toolPres = new Map(run.events.filter((e) => e.type === "tool.pre").map((e) => [e.seq, e]));
  const guardRows = run.ledger.filter((r) => r.hookKey === GUARD_ID);
  const covered = new Set<number>();
  let blocks = 0;
  for (const row of guardRows) {
    const event = row.eventSeq === null ? undefined : toolPres.get(row.eventSeq);
    if (!event || row.event !== "tool.pre" || covered.has(row.eventSeq!)) {
      problems.push(`${where}: a ledger row of ${GUARD_ID} on ${row.event} seq ${row.eventSeq}, not on a tool.pre of its own`);
      continue;
    }
    covered.add(row.eventSeq!);
    const asksForProd = JSON.stringify(event.data.toolInput ?? {}).includes("/srv/prod");
    if (row.verdict === "block") blocks++;
    if (!row.matched || (row.verdict === "block") !== asksForProd) {
      problems.push(`${where}: ${GUARD_ID} on seq ${row.eventSeq} ${row.matched ? row.verdict : "did not match"}, expected ${asksForProd ? "block" : "allow"}`);
    }
  }
  if (guardRows.length !== plan.toolCalls) problems.push(`${where}: ${guardRows.length} ledger rows of ${GUARD_ID}, expected ${plan.toolCalls} (one per tool.pre)`);
  if (blocks !== plan.denied) problems.push(`${where}: ${blocks} blocks in the ledger, expected ${plan.denied}`);
  return problems;
}

/** Every planned session is exactly one run holding what it sent, and no other run appeared. */
async function verifyLevel(source: RunSource, plans: SessionPlan[]): Promise<{ problems: string[]; runs: number; events: number }> {
  const runs = await source.newRuns();
  const problems: string[] = [];
  const bySession = new Map<string, RecordedRun[]>(plans.map((p) => [p.id, []]));
  for (const run of runs) {
    const mine = run.sessionId === undefined ? undefined : bySession.get(run.sessionId);
    if (mine) mine.push(run);
    else problems.push(`run ${run.id}: not a session of this level (${run.sessionId ?? "no session found"})`);
  }
  for (const plan of plans) {
    const found = bySession.get(plan.id)!;
    if (found.length !== 1) problems.push(`${plan.id}: ${found.length} runs, expected 1`);
    else problems.push(...checkRun(plan, found[0]));
  }
  return { problems, runs: runs.length, events: runs.reduce((n, r) => n + r.events.length, 0) };
}

// ---------------------------------------------------------------------------------------------
// The levels and the report.

interface Figures {
  calls: number;
  wallMs: number;
  rate: number;
  p50: number;
  p99: number;
  errors: number;
}

interface Row {
  deployment: Deployment;
  /** "warm-up", the number of sessions, or "200 paced". */
  label: string;
  sessions: number;
  paced: boolean;
  hookplane: Figures;
  bare?: Figures;
  problems: number;
  loadStart: number;
  loadEnd: number;
  /** CPU ms per call of each group of processes (undefined: not readable here). */
  cpu: { hookplane: CpuPerCall; bare?: CpuPerCall };
}

type CpuPerCall = Record<string, number | undefined>;
type Meters = { hookplane: ReturnType<typeof cpuMeter>; bare: ReturnType<typeof cpuMeter> };

function perCall(used: Record<string, number | undefined>, calls: number): CpuPerCall {
  return Object.fromEntries(Object.entries(used).map(([name, ms]) => [name, ms === undefined ? undefined : ms / calls]));
}

const cpuText = (cpu: CpuPerCall) =>
  Object.entries(cpu)
    .map(([name, ms]) => `${name} ${ms === undefined ? "n/a" : ms.toFixed(2)}`)
    .join(", ");

function figures(m: Measured): Figures {
  const { p50, p99 } = summarize(m.latencies);
  return { calls: m.calls, wallMs: m.wallMs, rate: m.calls / (m.wallMs / 1000), p50, p99, errors: m.errors.length };
}

const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "-");
const load1 = () => os.loadavg()[0];

function printFirst(label: string, lines: string[]) {
  if (lines.length === 0) return;
  console.log(`    ${lines.length} ${label}, the first:`);
  for (const line of lines.slice(0, 5)) console.log(`      ${line}`);
}

async function benchLevel(
  d: Deployment,
  targets: { bare: Target; hookplane: Target },
  meters: Meters,
  source: RunSource,
  level: { label: string; sessions: number; calls: number; paced?: boolean },
): Promise<Row> {
  const tag = `${d.db}-${d.processes}-${level.label.replace(" ", "-")}`;
  const loadStart = load1();
  // Bare first, then Hookplane, back to back: both under the same machine load. The paced
  // scenario's rate is fixed by its pace, so it has no bare peer to compare calls/s with.
  let bareCpu: CpuPerCall | undefined;
  let bare: Measured | undefined;
  if (!level.paced) {
    await meters.bare.start();
    bare = await runSessions(targets.bare, planLevel(`bare-${tag}`, level.sessions, level.calls));
    bareCpu = perCall(await meters.bare.stop(), bare.calls);
  }
  const plans = planLevel(tag, level.sessions, level.calls);
  await meters.hookplane.start();
  const measured = await runSessions(targets.hookplane, plans, level.paced ? PACED_INTERVAL_MS : undefined);
  const hookplaneCpu = perCall(await meters.hookplane.stop(), measured.calls);
  const loadEnd = load1();
  const verified = await verifyLevel(source, plans);
  const h = figures(measured);
  const b = bare && figures(bare);
  console.log(
    `${deploymentName(d).padEnd(12)} ${level.label.padStart(9)}: hookplane ${h.rate.toFixed(0)} calls/s p50 ${ms(h.p50)} p99 ${ms(h.p99)} ms, errors ${h.errors}` +
      (b ? ` | bare ${b.rate.toFixed(0)} calls/s p50 ${ms(b.p50)} p99 ${ms(b.p99)} ms, errors ${b.errors} | ratio ${((h.rate / b.rate) * 100).toFixed(1)}%` : "") +
      ` | load ${loadStart.toFixed(2)} → ${loadEnd.toFixed(2)} | read back: ${verified.problems.length === 0 ? "ok" : `${verified.problems.length} mismatches`} (${verified.runs} runs, ${verified.events} events)`,
  );
  console.log(`${"".padEnd(23)}CPU ms a call: hookplane ${cpuText(hookplaneCpu)}${bareCpu ? ` | bare ${cpuText(bareCpu)}` : ""}`);
  printFirst("wrong answers", measured.errors);
  printFirst("wrong answers from the bare server", bare?.errors ?? []);
  printFirst("mismatches", verified.problems);
  return {
    deployment: d,
    label: level.label,
    sessions: level.sessions,
    paced: level.paced === true,
    hookplane: h,
    bare: b,
    problems: verified.problems.length,
    loadStart,
    loadEnd,
    cpu: { hookplane: hookplaneCpu, bare: bareCpu },
  };
}

async function benchDeployment(d: Deployment, bare: { url: string; pid: number }): Promise<Row[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "hookplane-bench-ingest-"));
  const removeTmp = hold(() => rmSync(tmp, { recursive: true, force: true }));
  let dropDatabase: (() => Promise<void>) | undefined;
  try {
    // Workspaces (one folder per run, made by the bridge) beside the data folder, never inside it.
    const env: Record<string, string> = { HOOKPLANE_DATA_DIR: path.join(tmp, "data"), HOOKPLANE_WORKSPACES_DIR: path.join(tmp, "workspaces") };
    mkdirSync(env.HOOKPLANE_WORKSPACES_DIR);
    let databaseUrl = "";
    if (d.db === "postgres") {
      const fresh = await freshPostgres(PG_SERVER_URL, "hp_bench_ingest");
      dropDatabase = hold(fresh.drop);
      databaseUrl = fresh.url;
      // Processes sharing one PostgreSQL share the key that seals stored secrets (README, Environment).
      env.HOOKPLANE_SECRET_KEY = randomBytes(32).toString("hex");
    }
    env.DATABASE_URL = databaseUrl; // empty: embedded PGlite, whatever the caller's environment says
    const servers = await startHookplane(d, env);
    const sql = databaseUrl ? postgres(databaseUrl, { max: 2, onnotice: () => {} }) : undefined;
    const closeSql = hold(async () => void (await sql?.end({ timeout: 5 })));
    try {
      const tokens = await setUp(servers.urls[0]);
      const source = sql ? sqlSource(sql) : apiSource(servers.urls[0], tokens.admin);
      const targets = { bare: bareTarget(bare.url), hookplane: hookplaneTarget(servers.urls, tokens.operator) };
      // Where a call's CPU goes: the web processes, PostgreSQL's backends of this database (none
      // apart on PGlite, which runs inside the web process) and this client; the bare server's beside.
      const databasePids = async () =>
        sql ? (await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`).map((r) => r.pid) : [];
      const meters: Meters = {
        hookplane: cpuMeter({ server: () => servers.pids, database: databasePids, client: () => [process.pid] }),
        bare: cpuMeter({ server: () => [bare.pid], client: () => [process.pid] }),
      };
      // The warm-up's figures pay for a fresh process's JIT and caches: shown, kept out of the targets.
      const rows = [await benchLevel(d, targets, meters, source, { label: "warm-up", sessions: WARMUP_SESSIONS, calls: CALLS })];
      for (const sessions of LEVELS) rows.push(await benchLevel(d, targets, meters, source, { label: String(sessions), sessions, calls: CALLS }));
      rows.push(await benchLevel(d, targets, meters, source, { label: `${PACED_SESSIONS} paced`, sessions: PACED_SESSIONS, calls: PACED_CALLS, paced: true }));
      return rows;
    } finally {
      await closeSql();
      await servers.stop();
    }
  } finally {
    await dropDatabase?.();
    await removeTmp();
  }
}

function printTable(rows: Row[]) {
  const header = ["database", "sessions", "calls", "wall s", "calls/s", "p50 ms", "p99 ms", "errors", "read back", "bare calls/s", "bare p50", "bare p99", "ratio", "load start→end"];
  const lines = rows.map((r) => {
    const h = r.hookplane;
    return [
      deploymentName(r.deployment),
      r.label,
      String(h.calls),
      (h.wallMs / 1000).toFixed(1),
      h.rate.toFixed(0),
      ms(h.p50),
      ms(h.p99),
      String(h.errors),
      r.problems === 0 ? "ok" : `${r.problems} wrong`,
      r.bare ? r.bare.rate.toFixed(0) : "-",
      r.bare ? ms(r.bare.p50) : "-",
      r.bare ? ms(r.bare.p99) : "-",
      r.bare ? `${((h.rate / r.bare.rate) * 100).toFixed(1)}%` : "-",
      `${r.loadStart.toFixed(2)}→${r.loadEnd.toFixed(2)}`,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  console.log(format(header));
  for (const line of lines) console.log(format(line));
}

/**
 * Where a call's CPU goes at each deployment's busiest level: the ceiling of calls/s on this
 * machine is its cores over the sum (the client's share is the benchmark's own, not Hookplane's).
 */
function printCpu(rows: Row[]) {
  console.log("\nCPU ms a call (web processes, database backends, this client; the bare server beside):");
  for (const d of DEPLOYMENTS) {
    const busiest = rows.filter((r) => r.deployment === d && !r.paced && r.label !== "warm-up").at(-1);
    if (!busiest) continue;
    const sum = (cpu: CpuPerCall) => Object.values(cpu).reduce<number>((n, ms) => n + (ms ?? 0), 0);
    const cores = os.cpus().length;
    console.log(
      `  ${deploymentName(d).padEnd(12)} at ${busiest.label} sessions: ${cpuText(busiest.cpu.hookplane)} = ${sum(busiest.cpu.hookplane).toFixed(2)} ms, ` +
        `at most ~${((cores * 1000) / sum(busiest.cpu.hookplane)).toFixed(0)} calls/s on ${cores} cores` +
        (busiest.cpu.bare ? ` | bare ${cpuText(busiest.cpu.bare)} = ${sum(busiest.cpu.bare).toFixed(2)} ms` : ""),
    );
  }
}

/** The targets, each PASS or FAIL (or n/a when its level was not run); they never fail the run. */
function printTargets(rows: Row[]) {
  const find = (d: Deployment, label: string) => rows.find((r) => r.deployment === d && r.label === label);
  const say = (label: string, pass: boolean | undefined, got: string) => console.log(`  ${pass === undefined ? "n/a " : pass ? "PASS" : "FAIL"}  ${label}: ${got}`);
  console.log("\nTargets:");
  for (const d of DEPLOYMENTS) {
    const name = deploymentName(d);
    const at50 = find(d, "50");
    const ratio = at50 ? at50.hookplane.rate / at50.bare!.rate : undefined;
    const floor = d.db === "postgres" ? 0.4 : 0.25;
    say(`${name} at 50 sessions ≥ ${floor * 100}% of bare's calls/s`, ratio === undefined ? undefined : ratio >= floor, ratio === undefined ? "level not run" : `${(ratio * 100).toFixed(1)}%`);
    if (d.db === "postgres") {
      const paced = find(d, `${PACED_SESSIONS} paced`);
      say(`${name} paced ${PACED_SESSIONS} sessions p99 < 25 ms`, paced ? paced.hookplane.p99 < 25 : undefined, paced ? `${ms(paced.hookplane.p99)} ms` : "not run");
    }
    const one = find(d, "1");
    const over = one ? one.hookplane.p50 - one.bare!.p50 : undefined;
    say(`${name} 1 session p50 within 5 ms of bare's`, over === undefined ? undefined : over <= 5, over === undefined ? "level not run" : `${ms(one!.hookplane.p50)} vs ${ms(one!.bare!.p50)} ms (+${ms(over)})`);
  }
}

async function main(): Promise<number> {
  if (!existsSync(path.join(ROOT, ".next/BUILD_ID")) || !existsSync(path.join(ROOT, "dist/server.mjs"))) {
    console.error("bench:ingest runs the production server: run `npm run build` first (.next/BUILD_ID and dist/server.mjs)");
    return 1;
  }
  const began = performance.now();
  console.log(
    `Claude Code http hooks, ${CALLS} tool calls a session (1 in 10 denied), levels ${LEVELS.join(", ")} + paced ${PACED_SESSIONS} × ${PACED_CALLS} calls every ${PACED_INTERVAL_MS / 1000} s; ` +
      `node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`,
  );
  const rows: Row[] = [];
  try {
    const bare = await startBare();
    for (const d of DEPLOYMENTS) rows.push(...(await benchDeployment(d, bare)));
  } finally {
    await releaseAll();
    keepAlive.destroy();
  }
  console.log(`\nClaude Code http hooks (POST ${INGEST_PATH}), ${((performance.now() - began) / 1000).toFixed(0)} s in all`);
  printTable(rows);
  printCpu(rows);
  printTargets(rows);
  const wrong = rows.reduce((n, r) => n + r.hookplane.errors + (r.bare?.errors ?? 0) + r.problems, 0);
  if (wrong > 0) console.log(`\n${wrong} wrong answers or read-back mismatches: exit 1`);
  return wrong > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    void releaseAll().finally(() => process.exit(1));
  },
);
