import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eq } from "drizzle-orm";
import { createAgent } from "./agents";
import { countBlocksSince, insertHookInvocations, listRecentBlocks } from "./hook-invocations";
import { getRunStats } from "./run-stats";
import { createRun } from "./runs";
import { DEFAULT_PROJECT_ID, runs } from "../schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addProject } from "@/test/people";

let t: TestDatabase;
let agentA: string;
let agentB: string;
let otherProject: string;
const hourAgo = () => new Date(Date.now() - 60 * 60_000);

async function run(agentId: string, values: Partial<typeof runs.$inferInsert>, projectId = DEFAULT_PROJECT_ID) {
  const row = await createRun(t.db, { projectId, agentId, prompt: "p", source: "api" });
  await t.db.update(runs).set(values).where(eq(runs.id, row.id));
  return row.id;
}

beforeAll(async () => {
  t = await createTestDatabase();
  agentA = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "a" }) }))!.id;
  agentB = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "b" }) }))!.id;
  otherProject = (await addProject(t.db, { slug: "stats-other" })).id;
  const stranger = (await createAgent(t.db, { projectId: otherProject, spec: agentSpecSchema.parse({ name: "s" }) }))!.id;
  // One base instant: computed per call, start and finish would drift apart by the milliseconds between them.
  const base = Date.now() - 10 * 60_000;
  const at = (s: number) => new Date(base + s * 1000);
  await run(agentA, { status: "finished", outcome: "completed", costUsd: 0.5, blocked: true, startedAt: at(0), finishedAt: at(2) });
  await run(agentA, { status: "finished", outcome: "failed", costUsd: 0.25, startedAt: at(0), finishedAt: at(4) });
  await run(agentA, { status: "running", costUsd: 0.125, startedAt: at(0) });
  await run(agentB, { status: "finished", outcome: "timeout", costUsd: 1, startedAt: at(0), finishedAt: at(10) });
  // Before the window, and another project's: not counted.
  await run(agentA, { status: "finished", outcome: "completed", costUsd: 100, createdAt: new Date(Date.now() - 3 * 24 * 60 * 60_000) });
  await run(stranger, { status: "finished", outcome: "completed", costUsd: 100, startedAt: at(0), finishedAt: at(1) }, otherProject);
});
afterAll(async () => {
  await t.drop();
});

describe("run stats over a window", () => {
  test("a project's runs: how many, how they ended, blocked, cost and duration of the finished ones", async () => {
    expect(await getRunStats(t.db, { projectId: DEFAULT_PROJECT_ID, since: hourAgo() })).toEqual({
      runs: 4,
      active: 1,
      completed: 1,
      failed: 2,
      blocked: 1,
      costUsd: 1.875,
      medianDurationMs: 4000,
      p95DurationMs: expect.closeTo(9400, 0),
    });
  });

  test("one agent's runs only; a window with no run has no duration", async () => {
    expect(await getRunStats(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agentA, since: hourAgo() })).toMatchObject({ runs: 3, active: 1, completed: 1, failed: 1, costUsd: 0.875, medianDurationMs: 3000 });
    expect(await getRunStats(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agentB, since: new Date(Date.now() + 60_000) })).toEqual({
      runs: 0,
      active: 0,
      completed: 0,
      failed: 0,
      blocked: 0,
      costUsd: 0,
      medianDurationMs: null,
      p95DurationMs: null,
    });
  });
});

describe("recent blocks", () => {
  test("blocks that took effect, newest first, in this project only; a shadow block is not one", async () => {
    const base = { event: "tool.pre", scope: "global", action: "block", mode: "enforce", matched: true, verdict: "block" };
    await insertHookInvocations(t.db, { rows: [{ ...base, projectId: DEFAULT_PROJECT_ID, hookKey: "first", reason: "no" }] });
    await insertHookInvocations(t.db, { rows: [{ ...base, projectId: DEFAULT_PROJECT_ID, hookKey: "shadowed", mode: "shadow", ignored: true }] });
    await insertHookInvocations(t.db, { rows: [{ ...base, projectId: DEFAULT_PROJECT_ID, hookKey: "second", reason: "never" }] });
    await insertHookInvocations(t.db, { rows: [{ ...base, projectId: otherProject, hookKey: "theirs" }] });
    const blocks = await listRecentBlocks(t.db, { projectId: DEFAULT_PROJECT_ID, since: hourAgo(), limit: 10 });
    expect(blocks.map((b) => [b.hookKey, b.reason])).toEqual([
      ["second", "never"],
      ["first", "no"],
    ]);
    expect(await countBlocksSince(t.db, { projectId: DEFAULT_PROJECT_ID, since: hourAgo() })).toBe(2);
    expect(await countBlocksSince(t.db, { projectId: otherProject, since: hourAgo() })).toBe(1);
    expect(await countBlocksSince(t.db, { projectId: DEFAULT_PROJECT_ID, since: new Date(Date.now() + 60_000) })).toBe(0);
  });
});
