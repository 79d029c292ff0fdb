/**
 * npm run bench:durability — what at-most-once and the embedded database's promises cost (issue 19):
 *   1. recording intent: the agent loop on the real recorder (run events, run row checkpoint,
 *      run_messages) with one `list_files` call a turn, once as shipped and once with the intent
 *      save before each tool call dropped: CPU ms per step (process.cpuUsage of this process,
 *      which runs the loop and the embedded database alike) and the difference. Target < 10%.
 *   2. fsync on vs off: the same loop on PGlite on disk (a data directory in the temp folder),
 *      fsync on (the default) and off: CPU and wall ms per step, and fsyncs per step.
 *   3. a soak of BENCH_SOAK_RUNS (default 5,000) runs of 5 steps through the real run queue on
 *      PGlite on disk with its maintenance as shipped: the runs heap against its live rows, the
 *      WAL, the data directory's size.
 * Wall-clock figures are inflated on a shared machine; CPU time and counts are the ones to compare.
 * Knobs: BENCH_STEPS (steps per loop measurement, default 900, at most 990), BENCH_SOAK_RUNS (0 skips the soak).
 */
import "./quiet-logs";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { installDatabase, openDatabase, type DbHandle } from "@/db/client";
import { migrateDatabase } from "@/db/migrate";
import { runsHeapFigures } from "@/db/pglite-figures";
import { pgliteSyncCount } from "@/db/pglite-durability";
import { agentToSpec, createAgent } from "@/db/queries/agents";
import { seedPricesIfEmpty } from "@/db/queries/prices";
import { createRun } from "@/db/queries/runs";
import { runAgentSession } from "@/lib/core/agent/loop";
import type { CheckpointStore, LoopState } from "@/lib/core/agent/loop-state";
import { createScriptedProvider } from "@/lib/core/agent/providers/scripted-provider";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { PUBLISHED_PRICES } from "@/lib/features/costs/published-prices";
import { createRunCheckpointStore } from "@/lib/features/runs/run-checkpoint-store";
import { createRunEventWriter } from "@/lib/features/runs/run-event-writer";
import { plainShell } from "@/lib/core/hooks/ports";
import { createToolRegistry } from "@/lib/features/tools/tool-registry";
import { startRunWork } from "@/lib/process/run-work";
import { setEnv } from "@/test/config-env";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

// An agent takes at most 1,000 turns.
const STEPS = Math.min(990, Number(process.env.BENCH_STEPS ?? 900));
const SOAK_RUNS = Number(process.env.BENCH_SOAK_RUNS ?? 5_000);
const fmt = (n: number, digits = 3) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The intent save: durable, with a call that started and has no result yet. */
function isIntentSave(state: LoopState, durable: boolean | undefined): boolean {
  return durable === true && Object.values(state.stage.toolCalls).some((c) => c.startedAt !== undefined && c.result === undefined);
}

/**
 * One session of `steps` turns on the real recorder. Returns CPU and wall ms per step. `withIntent`
 * false drops the intent save (the state is saved with the result right after, as before issue 19).
 */
async function loopSteps(handle: DbHandle, steps: number, withIntent: boolean) {
  const script = [...Array.from({ length: steps }, (_, i) => ({ text: `step ${i}`, toolCalls: [{ name: "list_files", input: {} }] })), { text: "done" }];
  const spec = agentSpecSchema.parse({ name: `bench-${withIntent ? "intent" : "no-intent"}-${Date.now()}`, tools: ["list_files"], script, maxTurns: steps + 5 });
  const agent = (await createAgent(handle.db, { projectId: DEFAULT_PROJECT_ID, spec }))!;
  const run = await createRun(handle.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "go", source: "bench" });
  const writer = createRunEventWriter(handle.db, {
    runId: run.id,
    mode: "owner",
    lastSeq: 0,
    totals: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0 },
    toolsUsed: [],
    blocked: false,
  });
  const store = createRunCheckpointStore(handle.db, { runId: run.id, stored: null, writer });
  let intentSaves = 0;
  const checkpoint: CheckpointStore = {
    load: () => store.load(),
    async save(state, options) {
      if (isIntentSave(state, options?.durable)) {
        intentSaves++;
        if (!withIntent) return;
        await store.save(state, options);
        return;
      }
      await store.save(state, options);
    },
  };
  const workspace = mkdtempSync(path.join(tmpdir(), "bench-durability-ws-"));
  const tools = createToolRegistry({ workspaceDir: workspace, shell: { refusal: undefined, launcher: plainShell } });
  const syncs = pgliteSyncCount();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await runAgentSession({
    agent: agentToSpec(agent),
    runId: run.id,
    prompt: "go",
    provider: createScriptedProvider(script),
    tools,
    dispatch: async () => ({ verdict: "allow" }),
    emit: (type, data) => writer.emit(type, data),
    costOf: () => 0,
    checkpoint,
  });
  await writer.flush();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  rmSync(workspace, { recursive: true, force: true });
  if (result.outcome !== "completed") throw new Error(`bench session ended ${result.outcome}`);
  return {
    cpuMsPerStep: (used.user + used.system) / 1000 / steps,
    wallMsPerStep: wallMs / steps,
    syncsPerStep: (pgliteSyncCount() - syncs) / steps,
    intentSaves,
  };
}

async function openOnDisk(fsync: boolean): Promise<{ handle: DbHandle; dir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), `bench-durability-${fsync ? "fsync" : "nofsync"}-`));
  setEnv({ HOOKPLANE_PGLITE_FSYNC: fsync ? "1" : "0" });
  const handle = await openDatabase({ dataDir: path.join(dir, "pgdata") });
  await migrateDatabase(handle);
  return { handle, dir };
}

function duMb(dir: string): number {
  return Number(execFileSync("du", ["-sk", dir], { encoding: "utf8" }).split("\t")[0]) / 1024;
}

async function intentCost() {
  console.log(`\n1. Recording intent before each tool call (PGlite in memory, ${STEPS} steps, CPU ms per step)`);
  const handle = await openDatabase({ dataDir: "memory://" });
  await migrateDatabase(handle);
  // Warm up the JIT and the caches, then alternate so drift falls on both sides.
  await loopSteps(handle, 200, true);
  await loopSteps(handle, 200, false);
  const withIntent: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < 3; i++) {
    withIntent.push((await loopSteps(handle, STEPS, true)).cpuMsPerStep);
    without.push((await loopSteps(handle, STEPS, false)).cpuMsPerStep);
  }
  await handle.close();
  const a = Math.min(...withIntent);
  const b = Math.min(...without);
  console.log(`   with intent:    ${fmt(a)} ms CPU/step (best of 3: ${withIntent.map((x) => fmt(x)).join(", ")})`);
  console.log(`   without intent: ${fmt(b)} ms CPU/step (best of 3: ${without.map((x) => fmt(x)).join(", ")})`);
  console.log(`   difference: ${fmt(a - b)} ms CPU/step = ${fmt(((a - b) / b) * 100, 1)}% of a step (target < 10%; runs differ by more than this, see the spread)`);
}

async function fsyncCost() {
  console.log(`\n2. PGlite on disk, fsync on vs off (${STEPS} steps, with intent)`);
  for (const fsync of [true, false]) {
    const { handle, dir } = await openOnDisk(fsync);
    await loopSteps(handle, 200, true);
    const figures = await loopSteps(handle, STEPS, true);
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
    console.log(
      `   fsync ${fsync ? "on " : "off"}: ${fmt(figures.cpuMsPerStep)} ms CPU/step, ${fmt(figures.wallMsPerStep)} ms wall/step, ${fmt(figures.syncsPerStep, 2)} fsyncs/step`,
    );
  }
}

async function soak() {
  if (SOAK_RUNS <= 0) return;
  console.log(`\n3. Soak: ${SOAK_RUNS} runs of 5 steps through the run queue, PGlite on disk, fsync on, maintenance as shipped`);
  const { handle, dir } = await openOnDisk(true);
  installDatabase(handle);
  await seedPricesIfEmpty(handle.db, { projectId: DEFAULT_PROJECT_ID, prices: PUBLISHED_PRICES });
  const workspacesDir = mkdtempSync(path.join(tmpdir(), "bench-durability-soak-ws-"));
  const queue = await startRunWork(handle, { concurrency: 8, workspacesDir });
  const script = [...Array.from({ length: 5 }, (_, i) => ({ text: `step ${i}`, toolCalls: [{ name: "list_files", input: {} }] })), { text: "done" }];
  const agent = (await createAgent(handle.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "soak", tools: ["list_files"], script }) }))!;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const BATCH = 100;
  let worst = 0;
  for (let done = 0; done < SOAK_RUNS; done += BATCH) {
    const n = Math.min(BATCH, SOAK_RUNS - done);
    for (let i = 0; i < n; i++) {
      const run = await createRun(handle.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: `run ${done + i}`, source: "bench" });
      await queue.enqueue(run.id);
    }
    for (;;) {
      const { rows } = await handle.execute("select count(*)::int as n from runs where status <> 'finished'", []);
      if (Number(rows[0].n) === 0) break;
      await sleep(100);
    }
    const figures = await runsHeapFigures(handle);
    worst = Math.max(worst, figures.heapBytes / figures.liveBytes);
    if ((done + n) % 1000 === 0) {
      console.log(
        `   ${done + n} runs: runs heap ${fmt(figures.heapBytes / 1024, 0)} KB for ${fmt(figures.liveBytes / 1024, 0)} KB live (${fmt(figures.heapBytes / figures.liveBytes, 2)}x), WAL since checkpoint ${fmt(figures.walSinceCheckpointBytes / 1048576, 1)} MB, data dir ${fmt(duMb(dir), 1)} MB`,
      );
    }
  }
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  const { rows } = await handle.execute("select count(*)::int as n from runs where outcome = 'completed'", []);
  await queue.stop();
  const figures = await runsHeapFigures(handle);
  await handle.close();
  const walMb = duMb(path.join(dir, "pgdata", "pg_wal"));
  console.log(`   completed runs: ${rows[0].n}/${SOAK_RUNS} in ${fmt(seconds, 0)} s wall, ${fmt((used.user + used.system) / 1e6, 0)} s CPU`);
  console.log(`   runs heap: ${fmt(figures.heapBytes / 1024, 0)} KB for ${fmt(figures.liveBytes / 1024, 0)} KB live = ${fmt(figures.heapBytes / figures.liveBytes, 2)}x (worst after any batch of ${BATCH}: ${fmt(worst, 2)}x; target < 3x); with TOAST and indexes ${fmt(figures.totalBytes / 1048576, 1)} MB`);
  console.log(`   pg_wal on disk: ${fmt(walMb, 1)} MB; data directory: ${fmt(duMb(dir), 1)} MB`);
  rmSync(dir, { recursive: true, force: true });
  rmSync(workspacesDir, { recursive: true, force: true });
}

async function main() {
  console.log(`bench:durability (Node ${process.version}, ${new Date().toISOString()})`);
  await intentCost();
  await fsyncCost();
  await soak();
  setEnv({ HOOKPLANE_PGLITE_FSYNC: undefined });
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
