/**
 * npm run bench:chain — what the hash chain costs per hook ledger row, on embedded PGlite and, when
 * DATABASE_URL is set, on that PostgreSQL (a fresh database per phase, dropped after).
 *
 * Ledger rows are written one insertHookInvocations per dispatch, two rows each (two hooks bound),
 * as the hook test endpoint and the hook runtime's own ledger port do; the run engine batches a
 * step's rows with its events (appendRunRecords), which makes its inserts cheaper per row and the
 * seal a larger share of them: the runs phase below measures that path whole. On PostgreSQL the writers use 4 separate connection pools (as 4
 * worker processes would, 16 writers in all); PGlite has one connection. Phases:
 *   before  inserts with the append-only triggers and the sealer's work-list index removed: the
 *           schema as it was before the chain
 *   insert  inserts on the chained schema, nothing sealed
 *   seal    sealChain over those rows afterwards (one lock, batches of 2,000)
 *   both    inserts with every pool running the periodic sealer (as every process does), then a
 *           final seal
 *   verify  verifyChain over the sealed rows
 * Each is reported as wall-clock µs per row and as CPU µs per row: this process plus, on
 * PostgreSQL, the server backends of the benchmark's database (from /proc; the server must be on
 * this machine). CPU time is the figure to trust on a shared machine: wall time stretches with
 * whatever else runs, CPU time far less.
 * Then whole runs through the real run queue (in this process): RUN_COUNT scripted runs of 10
 * tool turns with 2 tool.pre hooks bound, 10 at a time, before (no chain) and chained with the
 * sealer running; CPU per tool turn and the chain's share of it. Then the hot path at the target load (800 ledger rows/s: 20 runs/s × 10 tool turns × 2 hooks, on
 * tool.pre and tool.post) for a few seconds: insert latency p50/p99 with the sealers running and
 * without, and the largest unsealed backlog seen.
 * Medians over BENCH_ROUNDS rounds (default 3) of BENCH_ROWS rows (default 20,000), after a small
 * warm-up round.
 * Then the signed record: what signing a head adds to each seal (the Ed25519 signature, and the
 * chain_seals insert with its guard) against a small seal batch, the periodic sealer's common
 * case, and against a full one; and a bundle of BENCH_BUNDLE_ROWS rows (default 100,000; 0 skips)
 * exported through the route's code and checked by the real CLI offline (`hookplane audit verify
 * --bundle`, a child process), in rows/s beside verifyChain on the database and a bare loop that
 * only reads and parses the file's lines: the ceiling of any line-by-line checker in node.
 * BENCH_ONLY_SIGNED=1 runs this part alone.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import readline from "node:readline";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { installDatabase, openDatabase, type DbHandle } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { verifyChain } from "@/db/queries/chain-verification";
import { sealChain } from "@/db/queries/hash-chain";
import { chainSeals, hookInvocations } from "@/db/schema";
import { createHook } from "@/db/queries/hooks";
import { insertHookInvocations, type NewHookInvocation } from "@/db/queries/hook-invocations";
import { seedPricesIfEmpty } from "@/db/queries/prices";
import { migrateDatabase } from "@/db/migrate";
import { createTestDatabase } from "@/test/database";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { startChainSealer } from "@/lib/features/audit/chain-sealer";
import { chainBundleLines } from "@/lib/features/audit/chain-bundle";
import { verifyStatement } from "@/lib/core/audit/chain-signature";
import { ledgerSigningKey, signWithLedgerKey } from "@/lib/platform/security/ledger-signing-key";
import { PUBLISHED_PRICES } from "@/lib/features/costs/published-prices";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { startRun } from "@/lib/features/runs/run-service";
import { startRunWork } from "@/lib/process/run-work";
import { installRunQueue } from "@/lib/features/runs/queue/run-queue-registry";
import { runBench, summarize } from "./bench-support";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

const ROWS = Number(process.env.BENCH_ROWS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 5);
const TARGET_ROWS_PER_S = 800;
const RUN_COUNT = Number(process.env.BENCH_RUNS ?? 20);
const TOOL_TURNS = 10;
const BUNDLE_ROWS = Number(process.env.BENCH_BUNDLE_ROWS ?? 100_000);
const SMALL_BATCH = 2;
const SMALL_BATCHES = 300;

interface Target {
  name: string;
  /** A fresh migrated database, with `pools` handles on it (1 for PGlite). */
  open(pools: number): Promise<{ handles: DbHandle[]; drop(): Promise<void> }>;
}

/** DATABASE_URL is read once, in main: openDatabase prefers it over a PGlite folder. */
const pglite: Target = {
  name: "PGlite",
  async open() {
    if (process.env.DATABASE_URL) throw new Error("DATABASE_URL must be unset while the PGlite target opens");
    const handle = await openDatabase({ dataDir: "memory://" });
    await migrateDatabase(handle);
    return { handles: [handle], drop: () => handle.close() };
  },
};

const postgres = (url: string): Target => ({
  name: "PostgreSQL",
  async open(pools) {
    process.env.DATABASE_URL = url;
    const t = await createTestDatabase().finally(() => delete process.env.DATABASE_URL);
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

const TICK_MS = 1000 / 100; // USER_HZ, the unit of /proc/<pid>/stat

/** CPU ms used so far by this process and by the server backends of `handle`'s database. */
async function cpuMs(handle: DbHandle): Promise<number> {
  const self = process.cpuUsage();
  let total = (self.user + self.system) / 1000;
  if (handle.kind === "postgres") {
    const { rows } = await handle.execute("select pid from pg_stat_activity where datname = current_database()");
    for (const { pid } of rows) {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
        total += (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime
      } catch {
        // a backend that ended, or a server elsewhere: its CPU is not counted
      }
    }
  }
  return total;
}

/** Wall and CPU µs per row of `work`; connections are opened first so none is born (or lost) inside. */
async function measure(handles: DbHandle[], rows: () => number, work: () => Promise<unknown>) {
  await Promise.all(handles.flatMap((h) => Array.from({ length: 10 }, () => h.execute("select 1"))));
  const cpu0 = await cpuMs(handles[0]);
  const t0 = performance.now();
  await work();
  const wall = performance.now() - t0;
  const cpu = (await cpuMs(handles[0])) - cpu0;
  const n = rows();
  return { wall: (wall * 1000) / n, cpu: (cpu * 1000) / n };
}

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
async function writeLedger(handles: DbHandle[], rows: number, writers: number) {
  let remaining = Math.ceil(rows / 2);
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const { db } = handles[w % handles.length];
      while (remaining-- > 0) await insertHookInvocations(db, { rows: dispatchRows() });
    }),
  );
}

const PHASES = ["before", "insert", "seal", "both", "verify"] as const;
type Phase = (typeof PHASES)[number];
type RoundResult = Record<Phase, { wall: number; cpu: number }>;

async function throughputRound(target: Target, pools: number, writers: number, rowCount: number): Promise<RoundResult> {
  const result = {} as RoundResult;
  {
    const db = await target.open(pools);
    try {
      await db.handles[0].execute("alter table hook_invocations disable trigger user");
      await db.handles[0].execute("drop index hook_invocations_unsealed_idx");
      result.before = await measure(db.handles, () => rowCount, () => writeLedger(db.handles, rowCount, writers));
    } finally {
      await db.drop();
    }
  }
  {
    const db = await target.open(pools);
    try {
      const { db: main } = db.handles[0];
      result.insert = await measure(db.handles, () => rowCount, () => writeLedger(db.handles, rowCount, writers));
      let sealed = 0;
      result.seal = await measure(db.handles, () => sealed, async () => (sealed = (await sealChain(main, { table: "hook_invocations" })).sealed));
      let checked = 0;
      result.verify = await measure(db.handles, () => checked, async () => {
        const report = await verifyChain(main, { table: "hook_invocations" });
        if (report.firstBroken || report.rows !== sealed) throw new Error(`verify failed: ${JSON.stringify(report)}`);
        checked = report.rows;
      });
    } finally {
      await db.drop();
    }
  }
  {
    const db = await target.open(pools);
    const sealers = db.handles.map((h) => startChainSealer(h.db));
    try {
      result.both = await measure(db.handles, () => rowCount, async () => {
        await writeLedger(db.handles, rowCount, writers);
        await Promise.all(sealers.map((s) => s.stop()));
        await sealChain(db.handles[0].db, { table: "hook_invocations" });
      });
      const report = await verifyChain(db.handles[0].db, { table: "hook_invocations" });
      if (report.firstBroken || report.unsealed !== 0 || report.rows !== rowCount) throw new Error(`verify failed: ${JSON.stringify(report)}`);
    } finally {
      await Promise.all(sealers.map((s) => s.stop()));
      await db.drop();
    }
  }
  return result;
}

/**
 * RUN_COUNT runs of a scripted agent (10 tool turns, read_file of a missing file) with two tool.pre
 * hooks that look and let the call through: 2 ledger rows per tool call, as in the target load.
 */
async function runEngine(target: Target, chained: boolean) {
  const db = await target.open(1);
  const handle = db.handles[0];
  const workspacesDir = mkdtempSync(path.join(tmpdir(), "hookplane-bench-chain-"));
  installDatabase(handle);
  let sealer: ReturnType<typeof startChainSealer> | undefined;
  const queue = await startRunWork(handle, { concurrency: 10, workspacesDir });
  installRunQueue(queue);
  try {
    await seedPricesIfEmpty(handle.db, { projectId: DEFAULT_PROJECT_ID, prices: PUBLISHED_PRICES });
    const turn = { text: "looking", toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }], usage: { inputTokens: 100, outputTokens: 20 } };
    const script = [...Array.from({ length: TOOL_TURNS }, () => turn), { text: "done" }];
    const agent = (await createAgent(handle.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "bench", tools: ["read_file"], script, maxTurns: 20 }) }))!;
    for (const id of ["no-prod", "no-secrets"]) {
      const spec = { id, scope: `agent:${agent.id}`, event: "tool.pre", action: { type: "block", reason: "not here", denyIf: `/srv/${id}` } };
      await createHook(handle.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse(spec), actor: "bench" });
    }
    if (!chained) {
      await handle.execute("alter table hook_invocations disable trigger user");
      await handle.execute("drop index hook_invocations_unsealed_idx");
    } else sealer = startChainSealer(handle.db);
    const principal = { kind: "user" as const, id: "bench", label: "bench", role: "operator" as const, projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: false };
    const result = await measure([handle], () => RUN_COUNT * TOOL_TURNS, async () => {
      for (let i = 0; i < RUN_COUNT; i++) await startRun(handle.db, principal, { agent: "bench", prompt: `run ${i}` });
      for (;;) {
        const { rows } = await handle.execute("select count(*)::int as n from runs where status = 'finished'");
        if (Number(rows[0].n) === RUN_COUNT) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await sealer?.stop();
      if (chained) await sealChain(handle.db, { table: "hook_invocations" });
    });
    const { rows } = await handle.execute("select count(*)::int as n, count(chain_seq)::int as sealed from hook_invocations");
    const expected = RUN_COUNT * TOOL_TURNS * 2;
    if (Number(rows[0].n) !== expected || Number(rows[0].sealed) !== (chained ? expected : 0)) throw new Error(`ledger: ${JSON.stringify(rows[0])}, expected ${expected}`);
    return { ...result, runsPerS: RUN_COUNT / ((result.wall * RUN_COUNT * TOOL_TURNS) / 1e6) };
  } finally {
    await sealer?.stop();
    await queue.stop();
    installRunQueue(undefined);
    await db.drop();
    rmSync(workspacesDir, { recursive: true, force: true });
  }
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
      const wait = start + (i * 1000) / perSecond - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const { db: writer } = db.handles[i % db.handles.length];
      const t0 = performance.now();
      inflight.push(insertHookInvocations(writer, { rows: dispatchRows() }).then(() => void latencies.push(performance.now() - t0)));
    }
    await Promise.all(inflight);
    const elapsed = (performance.now() - start) / 1000;
    clearInterval(watcher);
    await Promise.all(sealers.map((s) => s.stop()));
    return { ...summarize(latencies), achieved: (total * 2) / elapsed, maxBacklog };
  } finally {
    await Promise.all(sealers.map((s) => s.stop()));
    await db.drop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (n: number) => n.toFixed(1).padStart(8);
const pct = (n: number, of: number) => `${n >= of ? "+" : ""}${((n / of - 1) * 100).toFixed(0)}%`;

async function bench(target: Target) {
  if (process.env.BENCH_ONLY_SIGNED === "1") {
    console.log(`\n${target.name}: the signed record`);
    await signing(target);
    await bundle(target);
    return;
  }
  const pools = target === pglite ? 1 : 4;
  const writers = target === pglite ? 1 : 16;
  // A first round pays for warming up (JIT, WASM, the server's caches): run a small one, unreported.
  await throughputRound(target, pools, writers, Math.min(ROWS, 2_000));
  const rounds: RoundResult[] = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await throughputRound(target, pools, writers, ROWS));
  const m = (phase: Phase, k: "wall" | "cpu") => median(rounds.map((x) => x[phase][k]));
  const cpuWhat = target === pglite ? "this process" : "this process + server backends";
  console.log(
    `\n${target.name}: ${ROWS} ledger rows, 2 per insert, ${writers} writer${writers > 1 ? "s" : ""} on ${pools} pool${pools > 1 ? "s" : ""}; µs per row, median of ${ROUNDS} rounds`,
  );
  console.log(`                            wall      CPU (${cpuWhat})`);
  console.log(`  before (no chain)      ${f1(m("before", "wall"))}  ${f1(m("before", "cpu"))}`);
  console.log(`  insert (chained)       ${f1(m("insert", "wall"))}  ${f1(m("insert", "cpu"))}   CPU ${pct(m("insert", "cpu"), m("before", "cpu"))} vs before`);
  console.log(`  seal, afterwards       ${f1(m("seal", "wall"))}  ${f1(m("seal", "cpu"))}   ${Math.round(1e6 / m("seal", "wall"))} rows/s under one lock`);
  console.log(
    `  insert + seal          ${f1(m("insert", "wall") + m("seal", "wall"))}  ${f1(m("insert", "cpu") + m("seal", "cpu"))}   CPU ${pct(m("insert", "cpu") + m("seal", "cpu"), m("before", "cpu"))} vs before: the chain costs ${(m("insert", "cpu") + m("seal", "cpu") - m("before", "cpu")).toFixed(1)} µs CPU per row`,
  );
  console.log(`  insert, periodic seal  ${f1(m("both", "wall"))}  ${f1(m("both", "cpu"))}   CPU ${pct(m("both", "cpu"), m("before", "cpu"))} vs before (every row sealed at the end)`);
  console.log(`  verify                 ${f1(m("verify", "wall"))}  ${f1(m("verify", "cpu"))}   ${Math.round(1e6 / m("verify", "wall"))} rows/s`);
  if (RUN_COUNT > 0) {
    const before: Awaited<ReturnType<typeof runEngine>>[] = [];
    const chained: Awaited<ReturnType<typeof runEngine>>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      before.push(await runEngine(target, false));
      chained.push(await runEngine(target, true));
    }
    const mb = (k: "wall" | "cpu" | "runsPerS") => median(before.map((x) => x[k]));
    const mc = (k: "wall" | "cpu" | "runsPerS") => median(chained.map((x) => x[k]));
    // Two ledger rows per tool turn, each sealed once: the chain's share, from the seal's CPU per
    // row (the difference of two whole-run measurements, like insert vs before, is within the noise
    // of a shared machine: the insert path only gains a partial-index entry and a WHEN check).
    const perTurn = 2 * m("seal", "cpu");
    console.log(
      `  runs: ${RUN_COUNT} × ${TOOL_TURNS} tool turns, 2 hooks, 10 at a time: ${mb("runsPerS").toFixed(1)} runs/s before, ${mc("runsPerS").toFixed(1)} chained; CPU per tool turn ${mb("cpu").toFixed(0)} µs before, ${mc("cpu").toFixed(0)} µs chained (${pct(mc("cpu"), mb("cpu"))})`,
    );
    console.log(`  the chain per tool turn (2 rows × the seal's CPU per row): ${perTurn.toFixed(0)} µs = ${((perTurn / mb("cpu")) * 100).toFixed(1)}% of a tool turn's CPU before`);
  }
  await signing(target);
  await bundle(target);
  if (PACED_SECONDS <= 0) return;
  const quiet = await paced(target, pools, false);
  const sealed = await paced(target, pools, true);
  const ms = (n: number) => n.toFixed(2);
  console.log(
    `  paced at ${TARGET_ROWS_PER_S} rows/s for ${PACED_SECONDS} s (achieved ${Math.round(quiet.achieved)} / ${Math.round(sealed.achieved)}): 2-row insert p50/p99 ${ms(quiet.p50)}/${ms(quiet.p99)} ms without sealers, ${ms(sealed.p50)}/${ms(sealed.p99)} ms with ${pools}; unsealed backlog at most ${sealed.maxBacklog} rows`,
  );
}

/**
 * What the signature adds to a seal. Per batch: one Ed25519 signature and one chain_seals insert
 * (its guard trigger probes the sealed row). Measured alone, beside the seal of a small batch (the
 * periodic sealer seals what a second brought) and of a full one (2,000 rows).
 */
async function signing(target: Target) {
  const statement = { kind: "head", table: "hook_invocations", position: 1, hash: "a".repeat(64), signedAt: new Date().toISOString() } as const;
  const key = ledgerSigningKey();
  for (let i = 0; i < 200; i++) signWithLedgerKey(statement);
  const signs: number[] = [];
  const verifies: number[] = [];
  for (let i = 0; i < 2_000; i++) {
    const t0 = performance.now();
    const { signature } = signWithLedgerKey({ ...statement, position: i });
    const t1 = performance.now();
    verifyStatement(key.publicKey, { ...statement, position: i }, signature);
    verifies.push(performance.now() - t1);
    signs.push(t1 - t0);
  }
  const db = await target.open(1);
  try {
    const handle = db.handles[0];
    // Small batches: SMALL_BATCH rows appended, then sealed, SMALL_BATCHES times.
    let batches = 0;
    const small = await measure([handle], () => batches, async () => {
      for (let i = 0; i < SMALL_BATCHES; i++) {
        await insertHookInvocations(handle.db, { rows: dispatchRows().slice(0, SMALL_BATCH) });
        await sealChain(handle.db, { table: "hook_invocations" });
        batches++;
      }
    });
    // The same inserts, unsealed: what the loop costs besides the seal.
    let inserts = 0;
    const insertOnly = await measure([handle], () => inserts, async () => {
      for (let i = 0; i < SMALL_BATCHES; i++) {
        await insertHookInvocations(handle.db, { rows: dispatchRows().slice(0, SMALL_BATCH) });
        inserts++;
      }
    });
    await sealChain(handle.db, { table: "hook_invocations" });
    // A full batch.
    await writeLedger([handle], 2_000, 1);
    let full = 0;
    const fullBatch = await measure([handle], () => 1, async () => (full = (await sealChain(handle.db, { table: "hook_invocations" })).sealed));
    if (full !== 2_000) throw new Error(`a full batch sealed ${full} rows`);
    // The head alone: a signature and the insert, for positions that have no head yet, in one
    // transaction (in a seal they share the seal's: no commit of their own).
    const { rows } = await handle.execute(
      "select chain_seq::int as seq, hash from hook_invocations h where chain_seq is not null and not exists (select 1 from chain_seals s where s.table_name = 'hook_invocations' and s.chain_seq = h.chain_seq) order by chain_seq limit 500",
    );
    let heads = 0;
    const head = await measure([handle], () => heads, () =>
      handle.db.transaction(async (tx) => {
        for (const row of rows as { seq: number; hash: string }[]) {
          const signedAt = new Date();
          const signature = signWithLedgerKey({ kind: "head", table: "hook_invocations", position: row.seq, hash: row.hash, signedAt: signedAt.toISOString() });
          await tx.insert(chainSeals).values({ tableName: "hook_invocations", chainSeq: row.seq, hash: row.hash, signedAt, ...signature });
          heads++;
        }
      }),
    );
    const sealOnly = { wall: small.wall - insertOnly.wall, cpu: small.cpu - insertOnly.cpu };
    const us = (n: number) => n.toFixed(0).padStart(6);
    console.log(`  signed heads: Ed25519 sign ${median(signs).toFixed(3)} ms, verify ${median(verifies).toFixed(3)} ms (node:crypto, median of 2,000)`);
    console.log(
      `    one head per seal (sign + chain_seals insert): ${us(head.wall)} µs wall, ${us(head.cpu)} µs CPU; a ${SMALL_BATCH}-row seal batch ${us(sealOnly.wall)} µs wall, ${us(sealOnly.cpu)} µs CPU (the head ${((head.cpu / sealOnly.cpu) * 100).toFixed(0)}% of its CPU); a 2,000-row batch ${(fullBatch.wall / 1000).toFixed(1)} ms wall (the head ${((head.wall / fullBatch.wall) * 100).toFixed(2)}%)`,
    );
  } finally {
    await db.drop();
  }
}

/** Rows/s of reading `file` line by line and parsing each: the ceiling of a line-by-line checker in node. */
async function bareReadRate(file: string, rows: number): Promise<number> {
  const t0 = performance.now();
  let parsed = 0;
  for await (const line of readline.createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity })) {
    if (JSON.parse(line).type === "row") parsed++;
  }
  if (parsed !== rows) throw new Error(`read ${parsed} rows of ${rows}`);
  return rows / ((performance.now() - t0) / 1000);
}

/** A bundle of BUNDLE_ROWS rows: exported, then checked offline by the CLI, then by verifyChain. */
async function bundle(target: Target) {
  if (BUNDLE_ROWS <= 0) return;
  const db = await target.open(1);
  const dir = mkdtempSync(path.join(tmpdir(), "hookplane-bench-bundle-"));
  try {
    const handle = db.handles[0];
    const batch: (typeof hookInvocations.$inferInsert)[] = [];
    for (let i = 0; i < BUNDLE_ROWS; i += 2) {
      batch.push(...dispatchRows().map((r) => ({ ...r, approval: i % 10 === 0 ? { status: "approved", by: "ops@example.com", note: "ünïcödé ✓" } : null })));
      if (batch.length >= 1_000) await handle.db.insert(hookInvocations).values(batch.splice(0));
    }
    if (batch.length > 0) await handle.db.insert(hookInvocations).values(batch.splice(0));
    await sealChain(handle.db, { table: "hook_invocations" });
    const file = path.join(dir, "bundle.ndjson");
    const t0 = performance.now();
    const out = createWriteStream(file);
    for await (const page of chainBundleLines(handle.db, { table: "hook_invocations" })) {
      if (!out.write(page.map((line) => `${JSON.stringify(line)}
`).join(""))) await once(out, "drain");
    }
    out.end();
    await once(out, "finish");
    const exportS = (performance.now() - t0) / 1000;
    const keyFile = path.join(dir, "keys.json");
    writeFileSync(keyFile, JSON.stringify({ keys: [ledgerSigningKey().publicKey] }));
    const cli = async () => {
      const started = performance.now();
      const child = spawn(process.execPath, [path.resolve("bin/hookplane.cjs"), "audit", "verify", "--bundle", file, "--public-key", keyFile, "--json"], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let stdout = "";
      child.stdout.on("data", (c) => (stdout += c));
      const [code] = (await once(child, "close")) as [number];
      const report = JSON.parse(stdout) as { ok: boolean; rows: number };
      if (code !== 0 || !report.ok || report.rows !== BUNDLE_ROWS) throw new Error(`the CLI said ${code}: ${stdout.slice(0, 300)}`);
      return BUNDLE_ROWS / ((performance.now() - started) / 1000);
    };
    await cli();
    const cliRates = [await cli(), await cli(), await cli()];
    const bare = median([await bareReadRate(file, BUNDLE_ROWS), await bareReadRate(file, BUNDLE_ROWS), await bareReadRate(file, BUNDLE_ROWS)]);
    const v0 = performance.now();
    const report = await verifyChain(handle.db, { table: "hook_invocations" });
    if (report.firstBroken || report.rows !== BUNDLE_ROWS) throw new Error(`verify: ${JSON.stringify(report.firstBroken)}`);
    const serverRate = BUNDLE_ROWS / ((performance.now() - v0) / 1000);
    const cliRate = median(cliRates);
    const mb = statSync(file).size / 1e6;
    console.log(
      `  bundle of ${BUNDLE_ROWS} rows (${mb.toFixed(1)} MB, ${report.signatures?.heads} signed heads): exported at ${Math.round(BUNDLE_ROWS / exportS)} rows/s; the CLI offline ${Math.round(cliRate)} rows/s (whole process, median of 3) = ${((cliRate / bare) * 100).toFixed(0)}% of a bare read-and-parse loop (${Math.round(bare)} rows/s), ${(cliRate / serverRate).toFixed(2)}× verifyChain on the database (${Math.round(serverRate)} rows/s)`,
    );
  } finally {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  // The ledger signing key comes from the instance secret key: a throwaway one, not a key file here.
  process.env.HOOKPLANE_SECRET_KEY ??= randomBytes(32).toString("base64");
  const url = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL;
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`load average at start: ${load}`);
  await bench(pglite);
  if (url) await bench(postgres(url));
  else console.log("\n(PostgreSQL skipped: set DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/test)");
  console.log(`load average at end: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
}

runBench(main);
