/**
 * npm run bench:runs — the run engine under load, on a fresh database (a new one on the
 * PostgreSQL server of DATABASE_URL, dropped afterwards; in-memory PGlite when DATABASE_URL is
 * unset), in one run of the script:
 *   1. a backlog of 500 runs of a scripted agent with 10 tool turns each (`list_files`), a
 *      tool.pre `block` guard (its denyIf never matches) and a tool.post `log` hook bound:
 *      runs/s, events/s, created→started p50/p95, the p95 of GET /api/v1/runs (the route handler,
 *      in-process) while the backlog drains, the most waiting wake-ups any run had, and (on
 *      PostgreSQL) database transactions and statements per event (this process's pool, and
 *      pg-boss's own pool apart), and CPU per event: this process (process.cpuUsage) and the
 *      database's backends serving the benchmark's database (/proc/<pid>/stat, sampled), so a
 *      figure is comparable on a machine others load, and the runs/s that CPU would allow with
 *      every core on it (the wall-clock runs/s is bounded by creating the runs one at a time);
 *   2. once the backlog drained, fresh runs one at a time on the idle system: created→started;
 *   3. queue jobs per run (pg-boss jobs of the run queue, archived ones included);
 *   4. one long run (2,550 tool turns, ~10,200 events): ms per event around the 100th and the
 *      10,000th event, from the events' own timestamps (the lower quartile of twenty 40-event stretches around each).
 * The workers are the real run queue: in this process with the default concurrency (as the web
 * server runs it), or BENCH_WORKERS=n `npm run worker` processes (PostgreSQL only); the hash-chain
 * sealer runs beside it as in the web server, so the ledger rows are chained under the load.
 * Knobs: BENCH_RUNS, BENCH_TURNS, BENCH_FRESH, BENCH_LONG_TURNS (0 skips the long run), BENCH_WORKERS.
 * Profile the per-event path (the workers run in this process by default):
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/runs.ts
 *   npx tsx bench/cpu-profile-top.ts /tmp/prof/<the profile>.cpuprofile
 */
import "./quiet-logs";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { createAgent } from "@/db/queries/agents";
import { createHook } from "@/db/queries/hooks";
import { seedPricesIfEmpty } from "@/db/queries/prices";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { agentSpecSchema, type AgentSpecInput } from "@/lib/core/agent/agent-spec";
import { callRoute } from "@/test/api-client";
import { addPerson, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";
import type { Principal } from "@/lib/platform/auth/roles";
import { PUBLISHED_PRICES } from "@/lib/features/costs/published-prices";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { startRun } from "@/lib/features/runs/run-service";
import { workerConcurrency } from "@/lib/process/background";
import { RUN_QUEUE, type RunQueue } from "@/lib/features/runs/queue/run-queue";
import { startRunWork } from "@/lib/process/run-work";
import { installRunQueue } from "@/lib/features/runs/queue/run-queue-registry";
import { installDatabase } from "@/db/client";
import { startChainSealer } from "@/lib/features/audit/chain-sealer";
import { readFileSync } from "node:fs";
import * as runsRoute from "@/app/api/v1/runs/route";
import { percentile, runBench, stop, summarize } from "./bench-support";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

const RUNS = Number(process.env.BENCH_RUNS ?? 500);
const TURNS = Number(process.env.BENCH_TURNS ?? 10);
const FRESH = Number(process.env.BENCH_FRESH ?? 20);
// Four events a turn today (model.pre, model.post, tool.pre, tool.post): ~10,200 events.
const LONG_TURNS = Number(process.env.BENCH_LONG_TURNS ?? 2_550);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 0);

const operator: Principal = { kind: "user", id: "bench", label: "bench@example.com", role: "operator", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: false };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");

/** Statements this process's database pool sent, by their first word (PostgreSQL only). */
const statements = new Map<string, number>();
function countStatement(text: string) {
  const word = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? "?";
  statements.set(word, (statements.get(word) ?? 0) + 1);
  if (process.env.BENCH_TRACE_STATEMENTS) console.log(`sql: ${text.replace(/\s+/g, " ").slice(0, 160)}`);
}
/**
 * Statements pg-boss sends through its own pool, counted by wrapping pg's Client.query in this
 * process (the in-process queue's; not worker processes'). Our own pool is pg too: its statements
 * (counted by onStatement) pass through the same method and are taken off; what is left is
 * pg-boss's plus the health probe's `select 1` once a second.
 */
let pgStatements = 0;
async function countPgStatements(): Promise<void> {
  const pg = (await import("pg")).default;
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    pgStatements++;
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
}
const ownStatements = () => [...statements.values()].reduce((a, b) => a + b, 0);
const queueStatements = () => pgStatements - ownStatements();

function statementTotals(): Map<string, number> {
  return new Map(statements);
}

/**
 * CPU seconds (user + system) the backends of the benchmark's database have used, per pid: the
 * database server is on this machine, so /proc tells what each backend cost. Sampled, as backends
 * of a pool may come and go.
 */
const backendCpu = new Map<number, number>();
async function sampleBackendCpu(t: TestDatabase): Promise<void> {
  if (t.kind !== "postgres") return;
  const found = await rows<{ pid: number }>(t, "select pid from pg_stat_activity where datname = current_database()");
  for (const { pid } of found) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command name.
      backendCpu.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // The server runs elsewhere, or the backend just quit.
    }
  }
}
const backendCpuTotal = () => [...backendCpu.values()].reduce((a, b) => a + b, 0);

async function rows<T>(t: TestDatabase, text: string, params: unknown[] = []): Promise<T[]> {
  return (await t.execute(text, params)).rows as T[];
}

/** A scripted agent of `turns` list_files calls, with the guard and the log hook bound. */
async function addBenchAgent(t: TestDatabase, name: string, turns: number) {
  const spec: AgentSpecInput = {
    name,
    model: "scripted",
    tools: ["list_files"],
    script: [
      ...Array.from({ length: turns }, (_, i) => ({
        text: `step ${i + 1}`,
        toolCalls: [{ name: "list_files", input: {} }],
        usage: { inputTokens: 200, outputTokens: 20 },
      })),
      { text: "done", usage: { inputTokens: 200, outputTokens: 5 } },
    ],
  };
  // The long run needs more turns than an agent may ask for through the API (1,000).
  const parsed = { ...agentSpecSchema.parse({ ...spec, maxTurns: 1_000 }), maxTurns: turns + 5, timeoutMs: 24 * 3600_000 };
  const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: parsed }))!;
  const scope = `agent:${agent.id}`;
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({
      id: `${name}-guard`,
      event: "tool.pre",
      matcher: "list_files",
      scope,
      action: { type: "block", reason: "production paths are off-limits", denyIf: "/srv/prod" },
    }),
    actor: "bench",
  });
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: `${name}-log`, event: "tool.post", scope, action: { type: "log", message: "list_files ran" } }),
    actor: "bench",
  });
  return agent;
}

async function unfinished(t: TestDatabase, agentId: string): Promise<number> {
  const [row] = await rows<{ n: number }>(t, "select count(*)::int as n from runs where agent_id = $1 and status <> 'finished'", [agentId]);
  return row.n;
}

async function mostWaitingForOneRun(t: TestDatabase): Promise<number> {
  const [row] = await rows<{ n: number }>(
    t,
    `select count(*)::int as n from pgboss.job where name = $1 and state in ('created', 'retry')
     group by coalesce(singleton_key, data->>'runId') order by n desc limit 1`,
    [RUN_QUEUE],
  );
  return row?.n ?? 0;
}

/** `npm run worker` on the benchmark's database, its info log piped so its start can be seen. */
function startWorker(t: TestDatabase, dataDir: string): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "worker.ts"], {
    env: { ...process.env, DATABASE_URL: t.databaseUrl, HOOKPLANE_DATA_DIR: dataDir, LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "inherit"],
  });
}

function workerStarted(worker: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: worker.stdout! });
    lines.on("line", (line) => {
      if (line.includes('"worker started"')) resolve();
    });
    worker.once("exit", (code) => reject(new Error(`a worker exited with ${code} before it started`)));
  });
}

/** 1. The backlog: RUNS runs started at once, GET /api/v1/runs timed while they drain. */
async function backlogPhase(t: TestDatabase, token: string) {
  const agent = await addBenchAgent(t, "bench-load", TURNS);
  const commitsBefore = await commits(t);
  await sampleBackendCpu(t);
  const backendBefore = backendCpuTotal();
  const statementsBefore = statementTotals();
  const queueStatementsBefore = queueStatements();
  const cpuBefore = process.cpuUsage();
  const createStarted = performance.now();
  for (let i = 0; i < RUNS; i++) await startRun(t.db, operator, { agent: agent.id, prompt: `load ${i}`, source: "bench" });
  const createSeconds = (performance.now() - createStarted) / 1000;

  const getLatencies: number[] = [];
  let mostWaiting = 0;
  const deadline = Date.now() + 60 * 60_000;
  let lastSample = 0;
  for (;;) {
    const started = performance.now();
    const response = await callRoute(runsRoute.GET, { path: "/api/v1/runs", token });
    if (response.status !== 200) throw new Error(`GET /api/v1/runs answered ${response.status}`);
    getLatencies.push(performance.now() - started);
    if (Date.now() - lastSample > 1_000) {
      lastSample = Date.now();
      mostWaiting = Math.max(mostWaiting, await mostWaitingForOneRun(t));
      await sampleBackendCpu(t);
      if ((await unfinished(t, agent.id)) === 0) break;
    }
    if (Date.now() > deadline) throw new Error("the backlog did not drain in an hour");
    await sleep(200);
  }
  const cpu = process.cpuUsage(cpuBefore);
  await sampleBackendCpu(t);
  const backendSeconds = backendCpuTotal() - backendBefore;
  const sent = statementTotals();
  const [load] = await rows<{ seconds: number; events: number; failed: number }>(
    t,
    `select extract(epoch from max(r.finished_at) - min(r.created_at))::float8 as seconds,
            (select count(*)::int from run_events e join runs x on x.id = e.run_id where x.agent_id = $1) as events,
            count(*) filter (where r.outcome <> 'completed')::int as failed
     from runs r where r.agent_id = $1`,
    [agent.id],
  );
  const commitsDuring = (await commits(t, 2_000)) - commitsBefore;
  const backlog = summarize(await createdToStartedMs(t, agent.id));
  const gets = summarize(getLatencies);
  console.log(`backlog:            ${RUNS} runs × ${TURNS} tool turns, created in ${fmt(createSeconds)} s, drained in ${fmt(load.seconds)} s (${load.failed} not completed)`);
  console.log(`throughput:         ${fmt(RUNS / load.seconds)} runs/s, ${fmt(load.events / load.seconds, 0)} events/s (${load.events} events)   target ≥ 20 runs/s`);
  console.log(`created→started:    p50 ${fmt(backlog.p50 / 1000, 2)} s, p95 ${fmt(backlog.p95 / 1000, 2)} s (the wait behind ${RUNS} runs started at once)`);
  // The process's CPU includes creating the runs and this script's own sampling and GETs.
  console.log(`CPU:                ${fmt(((cpu.user + cpu.system) / 1000) / load.events, 3)} ms per event in this process (user ${fmt(cpu.user / 1e6)} s, system ${fmt(cpu.system / 1e6)} s)`);
  // What the CPU figures allow, whatever else loads the machine: every core on this engine alone
  // (PGlite runs the database in this process's one JavaScript thread: one core).
  const cpuPerRun = ((cpu.user + cpu.system) / 1e6 + backendSeconds) / RUNS;
  const cores = t.kind === "postgres" ? availableParallelism() : 1;
  console.log(`capacity:           ${fmt(cpuPerRun * 1000)} ms CPU per run (process${t.kind === "postgres" ? " + database" : ""}): ${cores} core${cores > 1 ? "s" : ""} would finish at most ${fmt(cores / cpuPerRun, 0)} runs/s`);
  if (t.kind === "postgres") {
    console.log(`database CPU:       ${fmt((backendSeconds * 1000) / load.events, 3)} ms per event in its backends (${fmt(backendSeconds)} s)`);
    console.log(`database:           ${fmt(commitsDuring / load.events, 2)} transactions per event (${commitsDuring} committed during the backlog, this script's own sampling included)`);
    const byWord = [...sent].map(([word, n]) => [word, n - (statementsBefore.get(word) ?? 0)] as const).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
    const total = byWord.reduce((a, [, n]) => a + n, 0);
    console.log(`statements:         ${fmt(total / load.events, 2)} per event (${byWord.map(([w, n]) => `${w} ${fmt(n / load.events, 2)}`).join(", ")}); pg-boss ${fmt((queueStatements() - queueStatementsBefore) / load.events, 2)} more (${fmt((queueStatements() - queueStatementsBefore) / RUNS, 1)} per run)`);
  }
  console.log(`GET /api/v1/runs:   p50 ${fmt(gets.p50, 0)} ms, p95 ${fmt(gets.p95, 0)} ms over ${gets.n} calls during the backlog`);
  console.log(`waiting wake-ups:   at most ${mostWaiting} for one run during the backlog   target ≤ 1`);
}

/**
 * Transactions committed in the database so far (PostgreSQL's statistics; 0 on PGlite). Each
 * backend reports at most once a second, so `settleMs` lets the last reports in first.
 */
async function commits(t: TestDatabase, settleMs = 0): Promise<number> {
  if (t.kind !== "postgres") return 0;
  await sleep(settleMs);
  const [row] = await rows<{ n: string }>(t, "select xact_commit as n from pg_stat_database where datname = current_database()");
  return Number(row.n);
}

async function createdToStartedMs(t: TestDatabase, agentId: string): Promise<number[]> {
  const found = await rows<{ ms: number }>(t, "select extract(epoch from started_at - created_at)::float8 * 1000 as ms from runs where agent_id = $1", [agentId]);
  return found.map((r) => r.ms);
}

/** 2. Fresh runs on the idle system (the backlog drained), one at a time. */
async function freshPhase(t: TestDatabase) {
  const agent = await addBenchAgent(t, "bench-fresh", 1);
  for (let i = 0; i < FRESH; i++) {
    await sleep(300);
    const run = await startRun(t.db, operator, { agent: agent.id, prompt: `fresh ${i}`, source: "bench" });
    const deadline = Date.now() + 60_000;
    while ((await rows(t, "select 1 from runs where id = $1 and started_at is null", [run.id])).length > 0) {
      if (Date.now() > deadline) throw new Error(`fresh run ${run.id} did not start in 60 s`);
      await sleep(10);
    }
  }
  while ((await unfinished(t, agent.id)) > 0) await sleep(100);
  const fresh = summarize(await createdToStartedMs(t, agent.id));
  console.log(`created→started:    after the backlog p50 ${fmt(fresh.p50, 0)} ms, p95 ${fmt(fresh.p95, 0)} ms over ${fresh.n} fresh runs   target p95 < 1,000 ms`);
}

/** 4. One long run, alone: wall time per event early and late in it. */
async function longRunPhase(t: TestDatabase) {
  const agent = await addBenchAgent(t, "bench-long", LONG_TURNS);
  const run = await startRun(t.db, operator, { agent: agent.id, prompt: "long", source: "bench" });
  const started = performance.now();
  for (;;) {
    const [row] = await rows<{ status: string }>(t, "select status from runs where id = $1", [run.id]);
    if (row.status === "finished") break;
    if (performance.now() - started > 2 * 3600_000) throw new Error("the long run did not finish in 2 h");
    await sleep(1_000);
  }
  const seconds = (performance.now() - started) / 1000;
  const times = (
    await rows<{ ms: number }>(t, "select extract(epoch from ts)::float8 * 1000 as ms from run_events where run_id = $1 order by seq", [run.id])
  ).map((r) => r.ms);
  // Wall time per event around the nth: the lower quartile of twenty 40-event stretches of the
  // 800 events around it (timestamps are whole milliseconds, so a stretch is long enough to read):
  // the run's own cost there, not a moment another process on the machine held the CPU.
  const msPerEventAt = (n: number) => {
    const from = Math.max(0, Math.min(n - 400, times.length - 801));
    if (from < 0 || times.length < n) return NaN;
    const stretches: number[] = [];
    for (let i = from; i < from + 800; i += 40) stretches.push((times[i + 40] - times[i]) / 40);
    return percentile([...stretches].sort((a, b) => a - b), 25);
  };
  const at100 = msPerEventAt(100);
  const at10k = msPerEventAt(10_000);
  console.log(
    `long run:           ${times.length} events in ${fmt(seconds, 0)} s; ${fmt(at100, 2)} ms/event at the 100th, ${fmt(at10k, 2)} ms/event at the 10,000th (×${fmt(at10k / at100, 2)})   target ≤ ×1.2`,
  );
}

async function main() {
  await countPgStatements();
  const t = await createTestDatabase({ onStatement: countStatement });
  installDatabase(t);
  const dataDir = mkdtempSync(path.join(tmpdir(), "hookplane-bench-runs-"));
  const workers: ChildProcess[] = [];
  let queue: RunQueue | undefined;
  let sealer: ReturnType<typeof startChainSealer> | undefined;
  try {
    if (WORKERS > 0 && t.kind !== "postgres") throw new Error("BENCH_WORKERS needs DATABASE_URL (PostgreSQL)");
    await seedPricesIfEmpty(t.db, { projectId: DEFAULT_PROJECT_ID, prices: PUBLISHED_PRICES });
    const benchUser = await addPerson(t.db, { email: "bench@example.com", passwordHash: await hashPassword("benchmark!"), role: "admin", instanceAdmin: true });
    const { token } = await addToken(t.db, { role: "admin", name: "setup", userId: benchUser.id });
    const concurrency = workerConcurrency();
    queue = await startRunWork(t, { concurrency: WORKERS > 0 ? 0 : concurrency, workspacesDir: path.join(dataDir, "workspaces") });
    installRunQueue(queue);
    sealer = startChainSealer(t.db);
    for (let i = 0; i < WORKERS; i++) workers.push(startWorker(t, dataDir));
    // A worker takes seconds to boot; the backlog's clock starts once every one is working.
    await Promise.all(workers.map(workerStarted));
    const where = t.kind === "postgres" ? "PostgreSQL" : "PGlite (in memory)";
    const who = WORKERS > 0 ? `${WORKERS} worker processes × ${concurrency}` : `the run queue in this process, concurrency ${concurrency}`;
    console.log(`\nbench:runs — ${where}, ${who}\n`);

    // Each phase prints its figures as soon as it is done (the long run takes minutes).
    if (RUNS > 0) await backlogPhase(t, token);
    if (FRESH > 0) await freshPhase(t);
    if (LONG_TURNS > 0) await longRunPhase(t);

    // 3. Queue jobs per run, every run of the benchmark.
    const [jobs] = await rows<{ jobs: number; runs: number }>(
      t,
      `select (select count(*)::int from pgboss.job where name = $1) + (select count(*)::int from pgboss.archive where name = $1) as jobs,
              (select count(*)::int from runs) as runs`,
      [RUN_QUEUE],
    );
    console.log(`queue:              ${fmt(jobs.jobs / jobs.runs, 2)} jobs per run (${jobs.jobs} jobs for ${jobs.runs} runs)   target ≤ 1.2`);
    console.log("");
  } finally {
    for (const worker of workers) await stop(worker);
    await queue?.stop();
    await sealer?.stop();
    installRunQueue(undefined);
    await t.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
