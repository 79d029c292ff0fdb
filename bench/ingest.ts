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
 * others must not be. Levels of BENCH_SESSIONS concurrent sessions (default 1,10,50,200), each in
 * BENCH_ROUNDS rounds (default 3), a round run first against a bare node:http server
 * (bench/bare-server.mjs: parse the body, answer {}) and then against Hookplane, so both see the
 * same machine load, and the targets read the median of the rounds; then a paced scenario: 200 sessions each
 * sending one call every 2 s (starts staggered over the 2 s), for its p99.
 * Each deployment starts with a warm-up level of 50 sessions (shown, not in the targets): a fresh
 * process pays for JIT and caches first. An error is a non-200, a wrong answer, or no answer in
 * 30 s. After each level the database is read back: every session is exactly one finished run, seqs
 * gapless from 1, the events its hooks map to, and one ledger row of the guard per tool.pre, a block
 * on exactly the denied ones (PostgreSQL: SQL; PGlite, which no second process may open: the API).
 * Printed per level: calls/s (calls / wall time), p50/p99, errors, the ratio to bare's calls/s and
 * the load average around it, and the CPU a call costs in the web processes, PostgreSQL's backends
 * and this client (bench/process-cpu.ts: where the ceiling is), and the time the hash chains'
 * seals of the level's ledger rows held the chain, a call (bench/ingest-seal.ts, from the servers'
 * /metrics; every level after the warm-up starts with every row sealed, and on PostgreSQL
 * vacuumed); then a table and the targets, PASS/FAIL but informational: PostgreSQL
 * at 50 sessions ≥ 40% of bare's calls/s, PGlite ≥ 25%; paced p99 < 25 ms on PostgreSQL; one
 * session's p50 within 5 ms of bare's. Exit 1 only when an answer was wrong or the read-back
 * disagrees.
 *   BENCH_SESSIONS, BENCH_CALLS (default 20), BENCH_ROUNDS (default 3), BENCH_DBS (default pglite,postgres; `pgbouncer` adds PostgreSQL behind a real PgBouncer in transaction mode, shown beside the targets, not held to them), BENCH_PROCESSES (web processes on PostgreSQL, default 1,2), BENCH_PEOPLE=1,
 *   BENCH_PACED_SESSIONS (default 200), BENCH_PACED_CALLS (default 5), DATABASE_URL.
 * This file runs each deployment's levels; the parts: the settings (bench/ingest-config.ts), the
 * servers and what the run holds (bench/ingest-servers.ts), the sessions (bench/ingest-sessions.ts),
 * the load client (bench/ingest-load.ts), the read-back (bench/ingest-readback.ts) and the report
 * (bench/ingest-report.ts).
 */
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CALLS, DEPLOYMENTS, INGEST_PATH, LEVELS, PACED_CALLS, PACED_INTERVAL_MS, PACED_SESSIONS, ROOT, ROUNDS, WARMUP_SESSIONS, deploymentName, type Deployment } from "./ingest-config";
import { bareTarget, hookplaneTarget, keepAlive, runSessions, type Measured, type Target } from "./ingest-load";
import { apiSource, sqlSource, verifyLevel, type RunSource } from "./ingest-readback";
import { cpuText, figures, ms, perCall, printCpu, printFirst, printTable, printTargets, roundLabel, tailByEvent, type CpuPerCall, type Row } from "./ingest-report";
import { sealTotals, waitUntilSealed } from "./ingest-seal";
import { releaseAll, runBench, settleDatabase, setUp, startBare, withDeployment } from "./ingest-servers";
import { planLevel } from "./ingest-sessions";
import { cpuMeter } from "./process-cpu";

type Meters = { hookplane: ReturnType<typeof cpuMeter>; bare: ReturnType<typeof cpuMeter> };
const load1 = () => os.loadavg()[0];

async function benchLevel(
  d: Deployment,
  targets: { bare: Target; hookplane: Target },
  meters: Meters,
  source: RunSource,
  level: { label: string; sessions: number; calls: number; paced?: boolean; round?: number },
): Promise<Row> {
  const round = level.round ?? 1;
  const tag = `${d.db}-${d.processes}-${level.label.replace(" ", "-")}-${round}`;
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
    `${deploymentName(d).padEnd(12)} ${roundLabel(level.label, round).padStart(9)}: hookplane ${h.rate.toFixed(0)} calls/s p50 ${ms(h.p50)} p99 ${ms(h.p99)} ms, errors ${h.errors}` +
      (b ? ` | bare ${b.rate.toFixed(0)} calls/s p50 ${ms(b.p50)} p99 ${ms(b.p99)} ms, errors ${b.errors} | ratio ${((h.rate / b.rate) * 100).toFixed(1)}%` : "") +
      ` | load ${loadStart.toFixed(2)} → ${loadEnd.toFixed(2)} | read back: ${verified.problems.length === 0 ? "ok" : `${verified.problems.length} mismatches`} (${verified.runs} runs, ${verified.events} events)`,
  );
  console.log(`${"".padEnd(23)}CPU ms a call: hookplane ${cpuText(hookplaneCpu)}${bareCpu ? ` | bare ${cpuText(bareCpu)}` : ""}`);
  console.log(`${"".padEnd(23)}by event: ${tailByEvent(measured)}`);
  printFirst("wrong answers", measured.errors);
  printFirst("wrong answers from the bare server", bare?.errors ?? []);
  printFirst("mismatches", verified.problems);
  return {
    deployment: d,
    label: level.label,
    round,
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
  return withDeployment(d, "hp_bench_ingest", async ({ servers, sql, databasePids }) => {
    const tokens = await setUp(servers.urls[0]);
    const source = sql ? sqlSource(sql) : apiSource(servers.urls[0], tokens.admin);
    const targets = { bare: bareTarget(bare.url), hookplane: hookplaneTarget(servers.urls, tokens.operator) };
    // Where a call's CPU goes: the web processes, PostgreSQL's backends of this database and this
    // client; the bare server's beside.
    const meters: Meters = {
      hookplane: cpuMeter({ server: () => servers.pids, database: databasePids, client: () => [process.pid] }),
      bare: cpuMeter({ server: () => [bare.pid], client: () => [process.pid] }),
    };
    // The warm-up's figures pay for a fresh process's JIT and caches: shown, kept out of the targets.
    // Each level after the warm-up starts settled: every row sealed (the sealer's work on what the
    // last level wrote is not counted in the next) and on PostgreSQL vacuumed (settleDatabase).
    // Then the time the seals of the level's own rows held the chain, a call (bench/ingest-seal.ts).
    const level = async (options: Parameters<typeof benchLevel>[4]) => {
      if (options.label !== "warm-up") {
        if (sql) await settleDatabase(sql);
        else await waitUntilSealed(servers.urls[0], tokens.admin);
      }
      const before = await sealTotals(servers.urls, tokens.admin);
      const row = await benchLevel(d, targets, meters, source, options);
      await waitUntilSealed(servers.urls[0], tokens.admin);
      const after = await sealTotals(servers.urls, tokens.admin);
      const calls = row.hookplane.calls;
      console.log(
        `${"".padEnd(23)}seals of its ledger rows: ${(((after.seconds - before.seconds) * 1000) / calls).toFixed(3)} ms a call, ${((after.rows - before.rows) / calls).toFixed(2)} rows a call`,
      );
      return row;
    };
    const rows = [await level({ label: "warm-up", sessions: WARMUP_SESSIONS, calls: CALLS })];
    for (const sessions of LEVELS) for (let round = 1; round <= ROUNDS; round++) rows.push(await level({ label: String(sessions), sessions, calls: CALLS, round }));
    rows.push(await level({ label: `${PACED_SESSIONS} paced`, sessions: PACED_SESSIONS, calls: PACED_CALLS, paced: true }));
    return rows;
  });
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

runBench(main);
