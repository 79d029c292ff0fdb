/**
 * The embedded database stays small (issue 19): a run's row is rewritten at every step, and PGlite
 * has no autovacuum, so db/pglite-durability.ts vacuums what is due. After a soak of runs the heap
 * of `runs` stays under 3x its live rows, and the WAL since the last checkpoint stays bounded.
 * The 5,000 runs take minutes: `npm run bench:durability` runs them and prints the figures;
 * this suite keeps the same assertion over fewer runs. PGlite only (PostgreSQL has autovacuum).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { createRun } from "@/db/queries/runs";
import { addAgent, createRunHarness, waitForRun, type RunHarness } from "@/test/run-harness";
import { runsHeapFigures } from "./pglite-figures";
import { setEnv } from "@/test/config-env";

const RUNS = 300;

describe.skipIf(Boolean(process.env.DATABASE_URL))("PGlite soak", () => {
  let h: RunHarness;

  beforeAll(async () => {
    setEnv({ HOOKPLANE_PGLITE_MAINTENANCE_MS: "250" });
    h = await createRunHarness({ concurrency: 8 });
  });
  afterAll(async () => {
    setEnv({ HOOKPLANE_PGLITE_MAINTENANCE_MS: undefined });
    await h.close();
  });

  test(`${RUNS} runs of 5 steps each: the heap of runs stays under 3x its live rows`, async () => {
    const script = [...Array.from({ length: 5 }, (_, i) => ({ text: `step ${i}`, toolCalls: [{ name: "list_files", input: {} }] })), { text: "done" }];
    const agent = await addAgent(h.t, { name: "soak", tools: ["list_files"], script });
    const ids: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const run = await createRun(h.t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: `run ${i}`, source: "test" });
      await h.queue.enqueue(run.id);
      ids.push(run.id);
    }
    for (const id of ids) await waitForRun(h.t, id, (r) => r.status === "finished", 120_000);
    const { rows } = await h.t.execute("select count(*)::int as n from runs where outcome = 'completed'");
    expect(rows[0].n).toBe(RUNS);

    const figures = await runsHeapFigures(h.t);
    expect(figures.liveRows).toBe(RUNS);
    // The heap is whole 8 KB pages: compared with the pages the live rows fill at the least, so a
    // few hundred small rows are not judged by the rounding of their last page.
    const livePages = Math.ceil(figures.liveBytes / 8192);
    expect(figures.heapBytes / 8192, JSON.stringify(figures)).toBeLessThanOrEqual(3 * livePages);
    expect(figures.walSinceCheckpointBytes).toBeLessThan(64 * 1024 * 1024);
  }, 300_000);
});
