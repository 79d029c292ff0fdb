/**
 * The settings of npm run bench:ingest (bench/ingest.ts): the levels, calls and databases from the
 * environment (its header lists them), checked before anything starts; and the names the
 * sessions, the answers and the read-back share.
 */
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const PG_SERVER_URL = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";

export function positiveInts(name: string, fallback: string): number[] {
  const values = (process.env[name] || fallback).split(",").map((v) => Number(v.trim()));
  if (values.some((v) => !Number.isInteger(v) || v < 1)) throw new Error(`${name}: expected positive integers, got "${process.env[name]}"`);
  return values;
}

export const LEVELS = positiveInts("BENCH_SESSIONS", "1,10,50,200");
export const [CALLS] = positiveInts("BENCH_CALLS", "20");
/**
 * Rounds of each level (bare, then Hookplane, back to back, each round): one level of 50 sessions
 * is about a second, and the bare server's calls/s alone moved 2× between levels of one run
 * (3,783 to 10,875 calls/s, session 29), so a target reads the median of its rounds' ratios.
 */
export const [ROUNDS] = positiveInts("BENCH_ROUNDS", "3");
export const [PACED_SESSIONS] = positiveInts("BENCH_PACED_SESSIONS", "200");
export const [PACED_CALLS] = positiveInts("BENCH_PACED_CALLS", "5");
export const PACED_INTERVAL_MS = 2000;
/**
 * Sessions of the warm-up level (verified, shown, kept out of the targets): a fresh process's first
 * requests pay for JIT and caches, and a server a team uses is warm. Five sessions (200 calls) were
 * too few: the same 50-session level run three times after them went at 791, 1,003 and 1,224
 * calls/s (PostgreSQL, one web process). 50 sessions (2,100 calls) were too few as well: five
 * 50-session levels after them went at 2,443, 3,329, 3,684, 3,715 and 3,531 calls/s, the web
 * process's CPU a call 0.42, 0.24, 0.20, 0.18, 0.20 ms (session 23). V8 optimizes by how often code
 * runs, not how long: about 8,000 calls, whatever the machine.
 */
export const WARMUP_SESSIONS = 200;
/** An answer later than this is an error; the session goes on, as Claude Code goes on past a failed hook. */
export const REQUEST_TIMEOUT_MS = 30_000;
const DBS = (process.env.BENCH_DBS || "pglite,postgres").split(",").map((d) => d.trim());
for (const db of DBS) if (db !== "pglite" && db !== "postgres" && db !== "pgbouncer") throw new Error(`BENCH_DBS: expected pglite, postgres and/or pgbouncer, got "${db}"`);

export const AGENT = "bench-agent";
export const GUARD_ID = "no-prod";
export const GUARD_REASON = "prod is off-limits";
export const INGEST_PATH = "/api/v1/ingest/claude-code";

type Database = "pglite" | "postgres";
export interface Deployment {
  db: Database;
  processes: number;
  /** PostgreSQL behind a real PgBouncer in transaction mode (BENCH_DBS=pgbouncer; test/pgbouncer.ts): its group commit PREPAREs per message. */
  pooler?: boolean;
}
/** How many web processes share PostgreSQL (BENCH_PROCESSES, default 1,2; PGlite is always one). */
const PROCESSES = positiveInts("BENCH_PROCESSES", "1,2");
export const DEPLOYMENTS: Deployment[] = [
  ...(DBS.includes("pglite") ? [{ db: "pglite" as const, processes: 1 }] : []),
  ...(DBS.includes("postgres") ? PROCESSES.map((processes) => ({ db: "postgres" as const, processes })) : []),
  ...(DBS.includes("pgbouncer") ? PROCESSES.map((processes) => ({ db: "postgres" as const, processes, pooler: true })) : []),
];
export const deploymentName = (d: Deployment) => `${d.db} ×${d.processes}${d.pooler ? " via PgBouncer" : ""}`;
