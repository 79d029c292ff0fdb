/**
 * npm run bench:chain — what the hash chain costs per hook ledger row, on embedded PGlite and, when
 * DATABASE_URL is set, on that PostgreSQL (a fresh database per round, dropped after).
 *
 * Ledger rows are written as the hook runtime writes them: one insertHookInvocations per dispatch,
 * two rows each (two hooks bound). On PostgreSQL the writers use 4 separate connection pools (as 4
 * worker processes would, 16 writers in all); PGlite has one connection. Per round, on fresh
 * databases:
 *   before  inserts with the append-only triggers and the sealer's work-list index removed: the
 *           schema as it was before the chain
 *   insert  inserts on the chained schema, nothing sealed
 *   seal    sealChain over those rows afterwards (one lock, batches of 2,000)
 *   both    inserts with every pool running the periodic sealer (as every process does), then a
 *           final seal: the whole cost, wall clock
 *   verify  verifyChain over the sealed rows
 * Then the hot path at the target load (800 ledger rows/s: 20 runs/s × 10 tool turns × 2 hooks, on
 * tool.pre and tool.post) for a few seconds: insert latency p50/p99 with the sealers running and
 * without, and the largest unsealed backlog seen.
 * Figures are medians over BENCH_ROUNDS rounds (default 3). BENCH_ROWS (default 20,000) rows each.
 */
import { performance } from "node:perf_hooks";
import { openDatabase, type DbHandle } from "@/db/client";
import { sealChain, verifyChain } from "@/db/queries/hash-chain";
import { insertHookInvocations, type NewHookInvocation } from "@/db/queries/hook-invocations";
import { migrateDatabase } from "@/db/migrate";
import { createTestDatabase } from "@/db/test-database";
import { startChainSealer } from "@/lib/audit-chain/chain-sealer";
import { summarize } from "./bench-support";

const ROWS = Number(process.env.BENCH_ROWS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 5);
const TARGET_ROWS_PER_S = 800;

interface Target {
  name: string;
  /** A fresh migrated database, with `pools` handles on it (1 for PGlite). */
  open(pools: number): Promise<{ handles: DbHandle[]; drop(): Promise<void> }>;
}

const pglite: Target = {
  name: "PGlite",
  async open() {
    const handle = await openDatabase({ dataDir: "memory://" });
    await migrateDatabase(handle);
    return { handles: [handle], drop: () => handle.close() };
  },
};

const postgres = (url: string): Target => ({
  name: "PostgreSQL",
  async open(pools) {
    process.env.DATABASE_URL = url;
    const t = await createTestDatabase();
    const others = await Promise.all(Array.from({ length: pools - 1 }, () => openDatabase({ databaseUrl: t.databaseUrl })));
    return {
      handles: [t, ...others],
      async drop() {
        await Promise.all(others.map((o) => o.close()));
        await t.drop();
      },
    };
  },
});

let serial = 0;
/** One dispatch's ledger rows: two hooks considered for a tool.pre, as the runtime records them. */
function dispatchRows(): NewHookInvocation[] {
  const n = serial++;
  return [
    { runId: null, eventSeq: n, event: "tool.pre", hookKey: "no-prod", hookVersion: 2, scope: "global", matched: true, verdict: "allow", mode: "enforce", action: "block", durationMs: 0.041 },
    { runId: null, eventSeq: n, event: "tool.pre", hookKey: "audit-webhook", hookVersion: 5, scope: "agent:bench", matched: true, verdict: "allow", reason: `call ${n} looked fine`, mode: "enforce", action: "webhook", output: '{"ok":true}', durationMs: 12.5 },
  ];
}

/** Inserts `rows` ledger rows, 2 per call, from `writers` concurrent loops spread over the handles. */
async function writeLedger(handles: DbHandle[], rows: number, writers: number): Promise<number> {
  let remaining = Math.ceil(rows / 2);
  const start = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const { db } = handles[w % handles.length];
      while (remaining-- > 0) await insertHookInvocations(db, { rows: dispatchRows() });
    }),
  );
  return performance.now() - start;
}

async function withoutChain(handle: DbHandle) {
  await handle.execute("alter table hook_invocations disable trigger user");
  await handle.execute("drop index hook_invocations_unsealed_idx");
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const us = (ms: number, rows: number) => (ms * 1000) / rows;

type RoundResult = Record<"before" | "insert" | "seal" | "both" | "verify", number>;

async function throughputRound(target: Target, pools: number, writers: number): Promise<RoundResult> {
  const result: RoundResult = { before: 0, insert: 0, seal: 0, both: 0, verify: 0 };
  {
    const db = await target.open(pools);
    try {
      await withoutChain(db.handles[0]);
      result.before = us(await writeLedger(db.handles, ROWS, writers), ROWS);
    } finally {
      await db.drop();
    }
  }
  {
    const db = await target.open(pools);
    try {
      result.insert = us(await writeLedger(db.handles, ROWS, writers), ROWS);
      let start = performance.now();
      const { sealed } = await sealChain(db.handles[0].db, { table: "hook_invocations" });
      result.seal = us(performance.now() - start, sealed);
      start = performance.now();
      const report = await verifyChain(db.handles[0].db, { table: "hook_invocations" });
      result.verify = us(performance.now() - start, report.rows);
      if (report.firstBroken || report.rows !== sealed) throw new Error(`verify failed: ${JSON.stringify(report)}`);
    } finally {
      await db.drop();
    }
  }
  {
    const db = await target.open(pools);
    const sealers = db.handles.map((h) => startChainSealer(h.db));
    try {
      const start = performance.now();
      await writeLedger(db.handles, ROWS, writers);
      await Promise.all(sealers.map((s) => s.stop()));
      await sealChain(db.handles[0].db, { table: "hook_invocations" });
      result.both = us(performance.now() - start, ROWS);
      const report = await verifyChain(db.handles[0].db, { table: "hook_invocations" });
      if (report.firstBroken || report.unsealed !== 0) throw new Error(`verify failed: ${JSON.stringify(report)}`);
    } finally {
      await Promise.all(sealers.map((s) => s.stop()));
      await db.drop();
    }
  }
  return result;
}

/** 2-row inserts at the target rate; latency of each insert, and the largest unsealed backlog. */
async function paced(target: Target, pools: number, withSealers: boolean) {
  const db = await target.open(pools);
  const sealers = withSealers ? db.handles.map((h) => startChainSealer(h.db)) : [];
  const latencies: number[] = [];
  let maxBacklog = 0;
  try {
    const perSecond = TARGET_ROWS_PER_S / 2;
    const total = perSecond * PACED_SECONDS;
    const start = performance.now();
    const inflight: Promise<void>[] = [];
    const watcher = setInterval(async () => {
      const { rows } = await db.handles[0].execute("select count(*)::int as n from hook_invocations where chain_seq is null");
      maxBacklog = Math.max(maxBacklog, Number(rows[0].n));
    }, 100);
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const { db: writer } = db.handles[i % db.handles.length];
      const t0 = performance.now();
      inflight.push(insertHookInvocations(writer, { rows: dispatchRows() }).then(() => void latencies.push(performance.now() - t0)));
    }
    await Promise.all(inflight);
    clearInterval(watcher);
    await Promise.all(sealers.map((s) => s.stop()));
    return { ...summarize(latencies), maxBacklog: withSealers ? maxBacklog : undefined };
  } finally {
    await Promise.all(sealers.map((s) => s.stop()));
    await db.drop();
  }
}

async function bench(target: Target) {
  const pools = target === pglite ? 1 : 4;
  const writers = target === pglite ? 1 : 16;
  const rounds: RoundResult[] = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await throughputRound(target, pools, writers));
  const m = (k: keyof RoundResult) => median(rounds.map((x) => x[k]));
  const fmt = (n: number) => n.toFixed(1).padStart(7);
  console.log(`\n${target.name}: ${ROWS} ledger rows, 2 per insert, ${writers} writer${writers > 1 ? "s" : ""} on ${pools} pool${pools > 1 ? "s" : ""}, median of ${ROUNDS} rounds (µs per row)`);
  console.log(`  before (no chain)        ${fmt(m("before"))}`);
  console.log(`  insert (chained schema)  ${fmt(m("insert"))}   ${((m("insert") / m("before") - 1) * 100).toFixed(1)}% over before`);
  console.log(`  seal afterwards          ${fmt(m("seal"))}   = ${Math.round(1e6 / m("seal"))} rows/s under one lock`);
  console.log(`  insert + periodic seal   ${fmt(m("both"))}   ${((m("both") / m("before") - 1) * 100).toFixed(1)}% over before (wall clock, all rows sealed)`);
  console.log(`  verify                   ${fmt(m("verify"))}   = ${Math.round(1e6 / m("verify"))} rows/s`);
  const quiet = await paced(target, pools, false);
  const sealed = await paced(target, pools, true);
  const ms = (n: number) => n.toFixed(2);
  console.log(`  at ${TARGET_ROWS_PER_S} rows/s for ${PACED_SECONDS} s, insert latency (2-row insert, ms): p50 ${ms(quiet.p50)} / p99 ${ms(quiet.p99)} without sealers, p50 ${ms(sealed.p50)} / p99 ${ms(sealed.p99)} with ${pools} sealer${pools > 1 ? "s" : ""}; largest unsealed backlog ${sealed.maxBacklog} rows`);
}

async function main() {
  const url = process.env.DATABASE_URL;
  await bench(pglite);
  if (url) await bench(postgres(url));
  else console.log("\n(PostgreSQL skipped: set DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/test)");
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
