/**
 * The load phases of npm run bench:chain (bench/hash-chain.ts): a throughput round (inserts before
 * the chain, on the chained schema, the seal, both at once, verify), whole scripted runs through
 * the real run queue before and with the chain, and inserts paced at the target rate.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { verifyChain } from "@/db/queries/chain-verification";
import { sealChain } from "@/db/queries/hash-chain";
import { createHook } from "@/db/queries/hooks";
import { insertHookInvocations } from "@/db/queries/hook-invocations";
import { seedPricesIfEmpty } from "@/db/queries/prices";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { startChainSealer } from "@/lib/features/audit/chain-sealer";
import { PUBLISHED_PRICES } from "@/lib/features/costs/published-prices";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { startRun } from "@/lib/features/runs/run-service";
import { startRunWork } from "@/lib/process/run-work";
import { installRunQueue } from "@/lib/features/runs/queue/run-queue-registry";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { summarize } from "./bench-support";
import { dispatchRows, measure, writeLedger, type Target } from "./chain-harness";

export const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 5);
export const TARGET_ROWS_PER_S = 800;
export const RUN_COUNT = Number(process.env.BENCH_RUNS ?? 20);
export const TOOL_TURNS = 10;

const PHASES = ["before", "insert", "seal", "both", "verify"] as const;
export type Phase = (typeof PHASES)[number];
export type RoundResult = Record<Phase, { wall: number; cpu: number }>;

export async function throughputRound(target: Target, pools: number, writers: number, rowCount: number): Promise<RoundResult> {
  const result = {} as RoundResult;
  {
    const db = await target.open(pools);
    try {
      await db.handles[0].execute("alter table hook_invocations disable trigger user");
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
export async function runEngine(target: Target, chained: boolean) {
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
    if (!chained) await handle.execute("alter table hook_invocations disable trigger user");
    else sealer = startChainSealer(handle.db);
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
    const { rows } = await handle.execute("select (select count(*)::int from hook_invocations) as n, (select count(*)::int from chain_links where table_name = 'hook_invocations') as sealed");
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
export async function paced(target: Target, pools: number, withSealers: boolean) {
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
      const { rows } = await db.handles[0].execute("select count(*)::int as n from hook_invocations h where not exists (select 1 from chain_links l where l.table_name = 'hook_invocations' and l.row_id = h.id)");
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
