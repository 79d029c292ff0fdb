/**
 * The retention pass is run by the queue's workers through pg-boss, once an hour however many
 * processes ask: two run queues (on PostgreSQL two database handles, as two processes would have;
 * on PGlite the embedded web process's one database) both ask, one pass runs, one audit row.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openDatabase, type DbHandle } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { setSetting } from "@/db/queries/settings";
import { runs } from "@/db/schema";
import { RETENTION_QUEUE } from "@/lib/features/retention/retention-job";
import { RETENTION_SETTING_KEY } from "@/lib/features/retention/retention-settings";
import type { RunQueue } from "@/lib/features/runs/queue/run-queue";
import { startRunWork } from "@/lib/process/run-work";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

let t: TestDatabase;
let workspacesDir: string;
beforeAll(async () => {
  t = await createTestDatabase();
  workspacesDir = mkdtempSync(path.join(os.tmpdir(), "hp-retention-job-"));
});
afterAll(async () => {
  await t?.drop();
  rmSync(workspacesDir, { recursive: true, force: true });
});

async function rows<T = Record<string, unknown>>(text: string, params?: unknown[]) {
  return (await t.execute(text, params)).rows as T[];
}

test("two processes ask for the hour's pass, one runs it: the expired run goes, one audit row", async () => {
  await setSetting(t.db, { key: RETENTION_SETTING_KEY, value: { runDays: 1, ledgerDays: 0, auditDays: 0 } });
  const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name: "old-runs", model: "scripted", tools: [], maxTurns: 3, timeoutMs: 10_000 } }))!;
  const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000);
  await t.db.insert(runs).values({ projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "expired", source: "api", status: "finished", outcome: "completed", createdAt: threeDaysAgo, finishedAt: threeDaysAgo });
  await t.db.insert(runs).values({ projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "recent", source: "api", status: "finished", outcome: "completed", finishedAt: new Date() });

  const second: DbHandle = t.databaseUrl ? await openDatabase({ databaseUrl: t.databaseUrl }) : t;
  const queues: RunQueue[] = [];
  try {
    for (const handle of [t, second]) {
      queues.push(await startRunWork(handle, { concurrency: 1, sweepMs: 60_000, workspacesDir, retentionPollSeconds: 0.5 }));
    }
    await expect.poll(async () => (await rows<{ prompt: string }>("select prompt from runs")).map((r) => r.prompt), { timeout: 30_000 }).toEqual(["recent"]);
    await expect
      .poll(async () => (await rows<{ state: string }>("select state::text from pgboss.job where name = $1", [RETENTION_QUEUE])).map((r) => r.state), { timeout: 30_000 })
      .not.toContain("active");
  } finally {
    for (const queue of queues) await queue.stop();
    if (second !== t) await second.close();
  }
  // One job per hour's slot, whoever asked (a test running across the hour sees two slots).
  const slots = await rows<{ n: number }>("select count(*)::int as n from pgboss.job where name = $1 group by singleton_on", [RETENTION_QUEUE]);
  expect(slots.every((s) => s.n === 1)).toBe(true);
  const applied = await rows<{ actor: string; after: unknown }>("select actor, after from audit_log where action = 'retention.apply'");
  expect(applied).toHaveLength(1);
  const report = typeof applied[0].after === "string" ? JSON.parse(applied[0].after) : applied[0].after;
  expect(report.runs).toMatchObject({ deleted: 1 });
  // Every start also made the coming days' partitions.
  const [made] = await rows<{ n: number }>("select count(*)::int as n from pg_inherits where inhparent = 'run_events'::regclass");
  expect(made.n).toBeGreaterThan(2);
});
