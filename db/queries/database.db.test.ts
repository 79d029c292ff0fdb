import { afterAll, beforeAll, expect, test } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { runEvents, runs } from "../schema";
import { createAgent } from "./agents";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

test("the migration creates the whole schema", async () => {
  const { rows } = await t.execute(
    "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
  );
  const tables = rows.map((r) => r.table_name);
  for (const name of [
    "agents", "api_tokens", "approvals", "audit_log", "hook_invocations", "hook_versions", "hooks",
    "model_prices", "run_events", "runs", "schedules", "secrets", "sessions", "users",
  ]) {
    expect(tables).toContain(name);
  }
});

// run_events is partitioned by time, so its unique index holds the partition key too: (run_id, seq,
// ts). Seqs come from the run row's counter (appendRunRecords), which hands each out once.
test("run_events refuses a second event with the same (run_id, seq) at the same time", async () => {
  const agent = await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name: "seq-agent", model: "scripted", tools: [], maxTurns: 3, timeoutMs: 10_000 } });
  const [run] = await t.db.insert(runs).values({ projectId: DEFAULT_PROJECT_ID, agentId: agent!.id, prompt: "hi" }).returning();
  const ts = new Date();
  await t.db.insert(runEvents).values({ runId: run.id, seq: 1, type: "session.start", ts });
  await expect(t.db.insert(runEvents).values({ runId: run.id, seq: 1, type: "session.end", ts })).rejects.toThrow();
});

test("LISTEN receives a NOTIFY", async () => {
  const got: string[] = [];
  const stop = await t.listen("hp_test_channel", (p) => got.push(p));
  await t.notify("hp_test_channel", "hello");
  await expect.poll(() => got, { timeout: 5000 }).toEqual(["hello"]);
  await stop();
});
