/**
 * npm run bench:chain — what the hash chain costs per hook ledger row, on embedded PGlite and, when
 * DATABASE_URL is set, on that PostgreSQL (a fresh database per phase, dropped after).
 *
 * Ledger rows are written one insertHookInvocations per dispatch, two rows each (two hooks bound),
 * as the hook test endpoint and the hook runtime's own ledger port do; the run engine batches a
 * step's rows with its events (appendRunRecords), which makes its inserts cheaper per row and the
 * seal a larger share of them: the runs phase below measures that path whole. On PostgreSQL the writers use 4 separate connection pools (as 4
 * worker processes would, 16 writers in all); PGlite has one connection. Phases:
 *   before  inserts with the chain's triggers off (append-only guards, the writers' hold on their
 *           transaction id): the schema as it was before the chain (the chain itself is in
 *           chain_links, which only the sealer writes)
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
 * This file runs the parts and prints the report: the databases, the measure and the ledger rows
 * are in bench/chain-harness.ts, the load phases in bench/chain-phases.ts, the signed record in
 * bench/chain-signed-record.ts.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { median, runBench } from "./bench-support";
import { pglite, postgres, type Target } from "./chain-harness";
import { PACED_SECONDS, paced, RUN_COUNT, runEngine, TARGET_ROWS_PER_S, throughputRound, TOOL_TURNS, type Phase, type RoundResult } from "./chain-phases";
import { bundle, signing } from "./chain-signed-record";

const ROWS = Number(process.env.BENCH_ROWS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

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
