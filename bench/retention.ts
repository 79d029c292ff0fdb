/**
 * npm run bench:retention — event appends while retention deletes 1,000,000 events (issue 12, item 6:
 * p99 append latency during retention within 2x of the idle figure).
 *
 * A fresh database (the PostgreSQL of DATABASE_URL, a database of its own dropped after; without it
 * in-memory PGlite with BENCH_EVENTS 100,000). Time is moved, as the retention tests do: daily
 * partitions are made for the coming 40 days, BENCH_EVENTS events of BENCH_OLD_RUNS finished runs
 * are written into the first 20 of them, and retention runs as if 40 days had passed (7 days kept),
 * so every one of those runs has expired (the rows vacuumed and checkpointed first, as days-old rows
 * are). Meanwhile BENCH_STREAMS live runs append a tool turn each
 * (2 events and a ledger row, appendRunRecords: the hot path) every BENCH_INTERVAL_MS, with the
 * chain sealer running, as a worker would; each append's latency is recorded.
 *
 * Two scenarios, each on its own fresh data:
 *   drop  every run of those days expired: whole partitions are dropped (DROP under a short
 *         lock_timeout; appends wait for it at most that long).
 *   rows  an agent that keeps forever also has a run each day: no partition may go, so the
 *         expired runs' events are deleted row by row, 5,000 a statement.
 * Printed per round: idle p50/p99, during-retention p50/p99 and their ratio, rows deleted per
 * second, the retention pass's duration, and the load average (the machine is shared); then the
 * median of BENCH_ROUNDS rounds (default 3) per scenario.
 */
import os from "node:os";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { openDatabase, type DbHandle } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { appendRunRecords } from "@/db/queries/run-events";
import { setSetting } from "@/db/queries/settings";
import { DEFAULT_PROJECT_ID, runs } from "@/db/schema";
import { startChainSealer } from "@/lib/features/audit/chain-sealer";
import { applyRetention, ensureRetentionPartitions, type RetentionReport } from "@/lib/features/retention/retention-pass";
import { RETENTION_SETTING_KEY } from "@/lib/features/retention/retention-settings";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { runBench, summarize } from "./bench-support";

const onPostgres = Boolean(process.env.DATABASE_URL);
const EVENTS = Number(process.env.BENCH_EVENTS ?? (onPostgres ? 1_000_000 : 100_000));
const OLD_RUNS = Number(process.env.BENCH_OLD_RUNS ?? 2_000);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 8);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 20);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 15);
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? "drop,rows").split(",");
/** Each scenario this many times on fresh data: the machine is shared, single rounds swing widely. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** BENCH_TRACE=1: the slowest appends during retention, each with the retention statements under way then. */
const TRACE = process.env.BENCH_TRACE === "1";
const DAY = 86_400_000;
const OLD_DAYS = 20;

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

async function seed(t: TestDatabase, scenario: string, now: Date) {
  await setSetting(t.db, { key: RETENTION_SETTING_KEY, value: { runDays: 7, ledgerDays: 0, auditDays: 0 } });
  const old = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name: "old", model: "scripted", tools: [], maxTurns: 3, timeoutMs: 10_000 } }))!;
  const live = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name: "live", model: "scripted", tools: [], maxTurns: 3, timeoutMs: 10_000 } }))!;
  // Daily partitions for the coming 40 days (every window is finite), before any keeper exists.
  await ensureRetentionPartitions(t.db, { now });
  const firstDay = Math.floor(Date.now() / DAY) * DAY + DAY;
  const perRun = Math.ceil(EVENTS / OLD_RUNS);
  // Runs spread over 20 days, each finished an hour after it started, events a few seconds apart.
  await t.execute(
    `with made as (
       insert into runs (project_id, agent_id, prompt, source, status, outcome, created_at, started_at, finished_at, last_seq)
       select '${DEFAULT_PROJECT_ID}'::uuid, $1, 'old run ' || i, 'bench', 'finished', 'completed', c, c, c + interval '1 hour', $2
         from generate_series(1, $3::int) i, lateral (select to_timestamp($4::float8 / 1000) + (i % $5) * interval '1 day' + (i % 20) * interval '1 hour' as c) t
       returning id, created_at)
     insert into run_events (run_id, seq, type, ts, data)
     select m.id, s, 'tool.pre', m.created_at + s * interval '3 seconds',
            '{"toolName":"shell","toolInput":{"command":"ls -la /srv"},"toolCallId":"call-1"}'::jsonb
       from made m, generate_series(1, $2::int) s`,
    [old.id, perRun, OLD_RUNS, firstDay, OLD_DAYS],
  );
  if (scenario === "rows") {
    const keeper = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name: "archivist", model: "scripted", tools: [], maxTurns: 3, timeoutMs: 10_000, retentionDays: 0 } }))!;
    await t.execute(
      `with made as (
         insert into runs (project_id, agent_id, prompt, source, status, outcome, created_at, finished_at, last_seq)
         select '${DEFAULT_PROJECT_ID}'::uuid, $1, 'kept ' || d, 'bench', 'finished', 'completed', to_timestamp($2::float8 / 1000) + d * interval '1 day', to_timestamp($2::float8 / 1000) + d * interval '1 day' + interval '1 hour', 1
           from generate_series(0, $3::int - 1) d
         returning id, created_at)
       insert into run_events (run_id, seq, type, ts, data) select id, 1, 'session.start', created_at, '{}'::jsonb from made`,
      [keeper.id, firstDay, OLD_DAYS],
    );
  }
  // Days-old rows, as retention finds them: vacuumed (autovacuum's insert threshold would have; the
  // first reads of freshly written rows dirty every page setting hint bits) and checkpointed.
  await t.execute("vacuum analyze");
  if (t.databaseUrl) await t.execute("checkpoint");
  const liveRuns: string[] = [];
  for (let i = 0; i < STREAMS; i++) {
    const [row] = await t.db.insert(runs).values({ projectId: DEFAULT_PROJECT_ID, agentId: live.id, prompt: `live ${i}`, source: "bench", status: "running" }).returning();
    liveRuns.push(row.id);
  }
  const [{ n }] = (await t.execute("select count(*)::int as n from run_events")).rows as { n: number }[];
  return { liveRuns, events: n };
}

/**
 * Appends a tool turn per live run every INTERVAL_MS until stopped. Each append has its due time on
 * a fixed schedule and its latency counts from then: an append that could not even start on time
 * (PGlite runs in this process, so a long statement holds every append back) is as late as one
 * that waited in the database.
 */
function stream(handle: DbHandle, liveRuns: string[]) {
  const samples: { at: number; ms: number }[] = [];
  let running = true;
  const loops = liveRuns.map(async (runId, i) => {
    let due = performance.now() + (INTERVAL_MS / liveRuns.length) * i;
    for (let turn = 0; running; turn++, due += INTERVAL_MS) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await appendRunRecords(handle.db, {
        runId,
        events: [
          { type: "tool.pre", data: { toolName: "shell", toolInput: { command: `echo ${turn}` }, toolCallId: `t${turn}` } },
          { type: "tool.post", data: { toolName: "shell", output: `${turn}\n`, toolCallId: `t${turn}` } },
        ],
        ledger: [{ runId, eventSeq: turn * 2 + 1, event: "tool.pre", hookKey: "guard", scope: "global", matched: true, verdict: "allow", mode: "enforce", action: "block", failed: false, timedOut: false, ignored: false, durationMs: 0.05 }],
        checkpoint: { turn },
      });
      samples.push({ at: due, ms: performance.now() - due });
    }
  });
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

const fmt = (n: number) => n.toFixed(2);

async function scenario(name: string): Promise<{ p50: number; p99: number; rowsPerSecond: number }> {
  const t = await createTestDatabase();
  // Retention on its own connections, as a worker process would have (PGlite has just the one).
  const statements: { at: number; text: string }[] = [];
  const onStatement = TRACE ? (text: string) => void statements.push({ at: performance.now(), text: text.replace(/\s+/g, " ").slice(0, 110) }) : undefined;
  const worker: DbHandle = t.databaseUrl ? await openDatabase({ databaseUrl: t.databaseUrl, onStatement }) : t;
  try {
    const later = new Date(Date.now() + 40 * DAY);
    const seedStart = performance.now();
    const { liveRuns, events } = await seed(t, name, later);
    console.log(`\n[${name}] ${events.toLocaleString()} events in ${OLD_RUNS} old runs written in ${((performance.now() - seedStart) / 1000).toFixed(1)} s; load ${load()}`);
    const sealer = startChainSealer(t.db);
    const appends = stream(t, liveRuns);
    await new Promise((r) => setTimeout(r, 2_000));
    const idleFrom = performance.now();
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1_000));
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    const retentionFrom = performance.now();
    const loadBefore = load();
    const report: RetentionReport = await applyRetention(worker.db, { now: later });
    const retentionTo = performance.now();
    loopDelay.disable();
    // A little after, so a statement cut short at the end is in the sample too.
    await new Promise((r) => setTimeout(r, 500));
    await appends.stop();
    await sealer.stop();
    const idle = summarize(appends.samples.filter((s) => s.at >= idleFrom && s.at < retentionFrom).map((s) => s.ms));
    const during = summarize(appends.samples.filter((s) => s.at >= retentionFrom && s.at < retentionTo).map((s) => s.ms));
    const seconds = (retentionTo - retentionFrom) / 1000;
    const [{ n: left }] = (await t.execute("select count(*)::int as n from run_events e join runs r on r.id = e.run_id where r.prompt like 'old run %'")).rows as { n: number }[];
    console.log(`[${name}] retention: ${report.runs.events.toLocaleString()} events of ${report.runs.deleted} runs in ${fmt(seconds)} s = ${Math.round(report.runs.events / seconds).toLocaleString()} rows/s; ${report.runs.partitionsDropped.length} partitions dropped; ${left} old events left`);
    console.log(`[${name}] append (2 events + 1 ledger row) idle:   n=${idle.n} p50 ${fmt(idle.p50)} ms p99 ${fmt(idle.p99)} ms`);
    console.log(`[${name}] append during retention:               n=${during.n} p50 ${fmt(during.p50)} ms p99 ${fmt(during.p99)} ms`);
    console.log(`[${name}] ratio during/idle: p50 ${fmt(during.p50 / idle.p50)}x, p99 ${fmt(during.p99 / idle.p99)}x (target p99 <= 2x); load before ${loadBefore}, after ${load()}`);
    if (TRACE) {
      console.log(`  this process's event loop during retention: delay p99 ${fmt(loopDelay.percentile(99) / 1e6)} ms, max ${fmt(loopDelay.max / 1e6)} ms`);
      const slowest = appends.samples.filter((s) => s.at >= retentionFrom && s.at < retentionTo).sort((a, b) => b.ms - a.ms).slice(0, 12);
      for (const s of slowest.sort((a, b) => a.at - b.at)) {
        const under = statements.filter((st) => st.at <= s.at + s.ms).slice(-2);
        console.log(`  +${fmt((s.at - retentionFrom) / 1000)} s ${fmt(s.ms)} ms; last statements: ${under.map((st) => `+${fmt((st.at - retentionFrom) / 1000)} ${st.text}`).join(" | ")}`);
      }
    }
    return { p50: during.p50 / idle.p50, p99: during.p99 / idle.p99, rowsPerSecond: report.runs.events / seconds };
  } finally {
    if (worker !== t) await worker.close();
    await t.drop();
  }
}

async function main() {
  console.log(`bench:retention on ${onPostgres ? "PostgreSQL" : "PGlite (in memory)"}: ${EVENTS.toLocaleString()} events, ${STREAMS} streams every ${INTERVAL_MS} ms; ${os.cpus().length} cores, load ${load()}`);
  for (const name of SCENARIOS) {
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await scenario(name));
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    console.log(
      `[${name}] median of ${ROUNDS} rounds: p50 ${fmt(median(rounds.map((r) => r.p50)))}x, p99 ${fmt(median(rounds.map((r) => r.p99)))}x of idle; ${Math.round(median(rounds.map((r) => r.rowsPerSecond))).toLocaleString()} rows/s; p99 ratios ${rounds.map((r) => fmt(r.p99)).join(", ")}`,
    );
  }
}

runBench(main);
