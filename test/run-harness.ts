/**
 * Shared setup of the run integration tests: a fresh database, the price seed, a run queue with
 * short timings, and helpers to wait for a run and read its events.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { createHook } from "@/db/queries/hooks";
import { seedPricesIfEmpty } from "@/db/queries/prices";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRunInAnyProject } from "@/db/queries/runs";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { agentSpecSchema, type AgentSpecInput } from "@/lib/core/agent/agent-spec";
import type { Principal } from "@/lib/platform/auth/roles";
import { PUBLISHED_PRICES } from "@/lib/features/costs/published-prices";
import { hookSpecSchema, type HookSpecInput } from "@/lib/core/hooks/spec";
import type { RunQueue } from "@/lib/features/runs/queue/run-queue";
import { startRunWork, type RunWorkOptions } from "@/lib/process/run-work";
import { installRunQueue } from "@/lib/features/runs/queue/run-queue-registry";
import { DEFAULT_PROJECT_ID, type Role } from "@/db/schema";

/** A person acting in a project (the default one unless named), as the API and actions see them. */
export function personIn(role: Role, project: { id: string; slug: string } = { id: DEFAULT_PROJECT_ID, slug: "default" }, email = `${role}@example.com`): Principal {
  return { kind: "user", id: `u-${role}-${project.slug}`, label: email, role, projectId: project.id, projectSlug: project.slug, instanceAdmin: false };
}

export const operator: Principal = personIn("operator", undefined, "ops@example.com");

export interface RunHarness {
  t: TestDatabase;
  queue: RunQueue;
  workspacesDir: string;
  restartQueue(options?: Partial<RunWorkOptions>): Promise<void>;
  close(): Promise<void>;
}

export async function createRunHarness(options: Partial<RunWorkOptions> = {}): Promise<RunHarness> {
  const t = await createTestDatabase();
  installDatabase(t);
  await seedPricesIfEmpty(t.db, { projectId: DEFAULT_PROJECT_ID, prices: PUBLISHED_PRICES });
  const workspacesDir = mkdtempSync(path.join(tmpdir(), "hookplane-runs-"));
  const queueOptions: RunWorkOptions = { concurrency: 4, leaseMs: 3_000, sweepMs: 200, approvalHoldMs: 5_000, workspacesDir, ...options };
  const harness: RunHarness = {
    t,
    queue: await startRunWork(t, queueOptions),
    workspacesDir,
    async restartQueue(next = {}) {
      await harness.queue.stop();
      harness.queue = await startRunWork(t, { ...queueOptions, ...next });
      installRunQueue(harness.queue);
    },
    async close() {
      await harness.queue.stop();
      installRunQueue(undefined);
      await t.drop();
      rmSync(workspacesDir, { recursive: true, force: true });
    },
  };
  installRunQueue(harness.queue);
  return harness;
}

export async function addAgent(t: TestDatabase, spec: AgentSpecInput, hooks: Omit<HookSpecInput, "scope">[] = [], projectId = DEFAULT_PROJECT_ID) {
  const agent = (await createAgent(t.db, { projectId, spec: agentSpecSchema.parse(spec) }))!;
  for (const hook of hooks) {
    await createHook(t.db, { projectId, spec: hookSpecSchema.parse({ ...hook, scope: `agent:${agent.id}` }), actor: "test" });
  }
  return agent;
}

export async function waitForRun(
  t: TestDatabase,
  id: string,
  predicate: (run: NonNullable<Awaited<ReturnType<typeof getRunInAnyProject>>>) => boolean,
  timeoutMs = 20_000,
) {
  // A plain loop rather than expect.poll, so setup hooks can wait for runs too.
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await getRunInAnyProject(t.db, { id });
    if (run && predicate(run)) return run;
    if (Date.now() > deadline) throw new Error(`run ${id} did not reach the expected state in ${timeoutMs} ms (status ${run?.status})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function runEvents(t: TestDatabase, runId: string) {
  return listRunEventsAfter(t.db, { runId, after: 0, limit: 10_000 });
}

/** Every run's events: seq 1..n with no gap, and session.end exactly once, last of the lifecycle. */
export function expectWellFormedStream(events: { seq: number; type: string }[]) {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  expect(events.filter((e) => e.type === "session.end")).toHaveLength(1);
}
