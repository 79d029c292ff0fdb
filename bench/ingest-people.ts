/**
 * npm run bench:ingest-people — what per-person policy and rate limits cost on the bridged hook
 * path (issue 27: under 10% of the throughput without them). bench:ingest with BENCH_PEOPLE=1
 * compares two runs on two fresh servers, minutes apart, whose own figures move by more than the
 * cost measured. Here one server (per deployment, as bench:ingest's) holds both agents, called
 * with one person's bridge credential:
 *   - `bench-agent`: the guard alone (block with denyIf /srv/prod);
 *   - `bench-agent-people`: the same guard after a per-person rule (`when` on actor.email, never
 *     matching this person: the cost of asking) and a per-person rate limit that never refuses
 *     (the cost of counting every call in the database).
 * After a warm-up of each, BENCH_PAIRS pairs (default 5) of BENCH_SESSIONS concurrent sessions
 * (default 50) of BENCH_CALLS tool calls, one level on each agent back to back, the order flipped
 * every pair so a drift of the machine favours neither. Every level is read back as bench:ingest's
 * are (one finished run a session, seqs gapless, every event and denial once). Printed: each
 * level's calls/s and CPU a call, and the time the hash chains' seals of its ledger rows held the
 * chain a call (the web processes' /metrics: bench/ingest-seal.ts), then per deployment the median
 * over the pairs of with against without in calls/s, in the web processes' and database's CPU a
 * call and in seal time a call. Each level starts with every row sealed (on PostgreSQL also
 * vacuumed: settleDatabase). Exit 1 only when an answer was wrong or a read-back disagrees.
 *   BENCH_PAIRS, BENCH_SESSIONS (first value), BENCH_CALLS, BENCH_DBS, DATABASE_URL.
 */
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AGENT, CALLS, DEPLOYMENTS, LEVELS, ROOT, WARMUP_SESSIONS, deploymentName, type Deployment } from "./ingest-config";
import { hookplaneTarget, keepAlive, runSessions } from "./ingest-load";
import { apiSource, sqlSource, verifyLevel, type RunSource } from "./ingest-readback";
import { cpuText, figures, perCall, printFirst, type CpuPerCall } from "./ingest-report";
import { releaseAll, runBench, settleDatabase, setUp, withDeployment } from "./ingest-servers";
import { sealTotals, waitUntilSealed } from "./ingest-seal";
import { planLevel } from "./ingest-sessions";
import { cpuMeter } from "./process-cpu";

const PAIRS = Number(process.env.BENCH_PAIRS ?? 5);
if (!Number.isInteger(PAIRS) || PAIRS < 1) throw new Error(`BENCH_PAIRS: expected a positive integer, got "${process.env.BENCH_PAIRS}"`);
const SESSIONS = process.env.BENCH_SESSIONS ? LEVELS[0] : 50;
const GOVERNED = `${AGENT}-people`;

type Side = "without" | "with";
interface Level {
  rate: number;
  cpu: CpuPerCall;
  /** Ms the sealers' seals of this level's ledger rows held the chain, a call. */
  seal: number;
  wrong: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const signed = (n: number) => `${n >= 0 ? "+" : ""}${(n * 100).toFixed(1)}%`;

type Cost = { rate: number; server?: number; database?: number; seal: number };

async function benchDeployment(d: Deployment): Promise<{ costs: Cost[]; wrong: number }> {
  return withDeployment(d, "hp_bench_people", async ({ servers, sql, databasePids }) => {
    const { admin, operator } = await setUp(servers.urls[0], {
      person: true,
      agents: [
        { name: AGENT, people: false },
        { name: GOVERNED, people: true },
      ],
    });
    const agentOf: Record<Side, string> = { without: AGENT, with: GOVERNED };
    const sources: Record<Side, RunSource> = {
      without: sql ? sqlSource(sql, AGENT) : apiSource(servers.urls[0], admin, AGENT),
      with: sql ? sqlSource(sql, GOVERNED) : apiSource(servers.urls[0], admin, GOVERNED),
    };
    const meter = cpuMeter({ server: () => servers.pids, database: databasePids });

    const level = async (side: Side, label: string, sessions: number): Promise<Level> => {
      const plans = planLevel(`${d.db}-${d.processes}-${side}-${label}`, sessions, CALLS);
      // Every level starts with the last one's rows sealed (and on PostgreSQL vacuumed).
      if (sql) await settleDatabase(sql);
      else await waitUntilSealed(servers.urls[0], admin);
      const sealedBefore = await sealTotals(servers.urls, admin);
      await meter.start();
      const measured = await runSessions(hookplaneTarget(servers.urls, operator, agentOf[side]), plans);
      const cpu = perCall(await meter.stop(), measured.calls);
      // The seals of this level's rows, those that ran after it too (not in its calls/s).
      await waitUntilSealed(servers.urls[0], admin);
      const sealedAfter = await sealTotals(servers.urls, admin);
      const seal = ((sealedAfter.seconds - sealedBefore.seconds) * 1000) / measured.calls;
      const sealedRows = (sealedAfter.rows - sealedBefore.rows) / measured.calls;
      const verified = await verifyLevel(sources[side], plans);
      const f = figures(measured);
      console.log(
        `${deploymentName(d).padEnd(12)} ${label.padStart(8)} ${side.padStart(7)}: ${f.rate.toFixed(0)} calls/s p50 ${f.p50.toFixed(1)} p99 ${f.p99.toFixed(1)} ms, errors ${f.errors} | CPU ms a call: ${cpuText(cpu)} | seal ${seal.toFixed(3)} ms a call (${sealedRows.toFixed(2)} rows) | load ${os.loadavg()[0].toFixed(2)} | read back: ${verified.problems.length === 0 ? "ok" : `${verified.problems.length} mismatches`}`,
      );
      printFirst("wrong answers", measured.errors);
      printFirst("mismatches", verified.problems);
      return { rate: f.rate, cpu, seal, wrong: f.errors + verified.problems.length };
    };

    let wrong = 0;
    for (const side of ["without", "with"] as const) wrong += (await level(side, "warm-up", WARMUP_SESSIONS)).wrong;
    const costs: Cost[] = [];
    for (let pair = 1; pair <= PAIRS; pair++) {
      const order: Side[] = pair % 2 ? ["without", "with"] : ["with", "without"];
      const got = {} as Record<Side, Level>;
      for (const side of order) {
        got[side] = await level(side, `pair ${pair}`, SESSIONS);
        wrong += got[side].wrong;
      }
      const cpuCost = (key: string) => {
        const a = got.without.cpu[key];
        const b = got.with.cpu[key];
        return a === undefined || b === undefined || a === 0 ? undefined : b / a - 1;
      };
      costs.push({ rate: got.with.rate / got.without.rate - 1, server: cpuCost("server"), database: cpuCost("database"), seal: got.with.seal - got.without.seal });
    }
    return { costs, wrong };
  });
}

async function main(): Promise<number> {
  if (!existsSync(path.join(ROOT, ".next/BUILD_ID")) || !existsSync(path.join(ROOT, "dist/server.mjs"))) {
    console.error("bench:ingest-people runs the production server: run `npm run build` first (.next/BUILD_ID and dist/server.mjs)");
    return 1;
  }
  console.log(
    `Per-person policy and rate limits on the bridged hook path: ${PAIRS} pairs of ${SESSIONS} sessions × ${CALLS} tool calls, a person's bridge credential; ` +
      `node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`,
  );
  const summary: string[] = [];
  let wrong = 0;
  try {
    for (const d of DEPLOYMENTS) {
      const result = await benchDeployment(d);
      wrong += result.wrong;
      const of = (key: "rate" | "server" | "database") => {
        const values = result.costs.map((c) => c[key]).filter((v): v is number => v !== undefined);
        return values.length ? `${signed(median(values))} (pairs ${values.map(signed).join(", ")})` : "n/a";
      };
      const sealMs = result.costs.map((c) => c.seal);
      summary.push(
        `${deploymentName(d).padEnd(12)} calls/s ${of("rate")}; web CPU a call ${of("server")}; database CPU a call ${of("database")}; ` +
          `seals a call +${(median(sealMs) * 1000).toFixed(0)} µs (pairs ${sealMs.map((ms) => `${(ms * 1000).toFixed(0)}`).join(", ")})`,
      );
    }
  } finally {
    await releaseAll();
    keepAlive.destroy();
  }
  console.log(`\nThe cost of per-person policy and rate limits, median of ${PAIRS} pairs with against without (target: calls/s down by less than 10%):`);
  for (const line of summary) console.log(`  ${line}`);
  if (wrong > 0) console.log(`\n${wrong} wrong answers or read-back mismatches: exit 1`);
  return wrong > 0 ? 1 : 0;
}

runBench(main);
