/**
 * Rewriting a run_events partition keeping the survivors (partition-rewrite.ts): the kept runs'
 * events are there afterwards exactly as before, the expired ones are gone, the partition keeps its
 * name and range, and the table takes appends and enforces its unique keys as before. On
 * PostgreSQL, an append still open on today's partition does not hold it up: the parent is never
 * locked against appends.
 */
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { listPartitions, ensurePartitions } from "./partitions";
import { rewriteEventPartition, survivorShare, worthRewriting } from "./partition-rewrite";

const DAY = 86_400_000;
let t: TestDatabase;

async function rows<T = Record<string, unknown>>(text: string, params?: unknown[]) {
  return (await t.execute(text, params)).rows as T[];
}

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

test("a partition mostly of expired runs is replaced by one holding only the kept runs' events", async () => {
  const firstDay = Math.floor(Date.now() / DAY) * DAY + DAY;
  await ensurePartitions(t.db, { table: "run_events", period: "day", until: new Date(firstDay + 3 * DAY) });
  const [agent] = await rows<{ id: string }>("insert into agents (project_id, name, model, max_turns, timeout_ms) values ($1, 'a', 'scripted', 3, 1000) returning id", [DEFAULT_PROJECT_ID]);
  const run = async () => (await rows<{ id: string }>("insert into runs (project_id, agent_id, prompt) values ($1, $2, 'p') returning id", [DEFAULT_PROJECT_ID, agent.id]))[0].id;
  const kept = await run();
  const expired = [await run(), await run()];
  const day = new Date(firstDay + DAY);
  for (const [i, runId] of [kept, ...expired].entries()) {
    for (let seq = 1; seq <= (runId === kept ? 2 : 10); seq++) {
      await t.execute("insert into run_events (run_id, seq, type, ts, data) values ($1, $2, 'tool.pre', $3, $4)", [runId, seq, new Date(day.getTime() + i * 60_000 + seq).toISOString(), JSON.stringify({ seq, i })]);
    }
  }
  // An event of the kept run on another day is not touched.
  await t.execute("insert into run_events (run_id, seq, type, ts) values ($1, 3, 'later', $2)", [kept, new Date(firstDay + 2 * DAY).toISOString()]);
  const partition = (await listPartitions(t.db, { table: "run_events" })).find((p) => p.lower?.getTime() === day.getTime())!;
  const keptBefore = await rows("select * from run_events where run_id = $1 order by seq", [kept]);

  const share = await survivorShare(t.db, { partition: partition.name, keptRunIds: [kept] });
  expect(share).toEqual({ rows: 22, survivors: 2 });
  expect(worthRewriting(share)).toBe(true);
  expect(await rewriteEventPartition(t.db, { partition, keptRunIds: [kept] })).toBe(20);

  expect(await rows("select * from run_events where run_id = $1 order by seq", [kept])).toEqual(keptBefore);
  expect(await rows("select count(*)::int as n from run_events where run_id = any($1::uuid[])", [expired])).toEqual([{ n: 0 }]);
  const after = await listPartitions(t.db, { table: "run_events" });
  expect(after.find((p) => p.name === partition.name)).toEqual(partition);
  // Still a partition with its keys: a duplicate (run, seq, ts) is refused there, a new event goes in.
  await expect(t.execute("insert into run_events (run_id, seq, type, ts) values ($1, 1, 'dup', $2)", [kept, keptBefore[0].ts])).rejects.toThrow(/duplicate key/);
  await t.execute("insert into run_events (run_id, seq, type, ts) values ($1, 9, 'late clock', $2)", [kept, new Date(day.getTime() + 5_000).toISOString()]);
  expect(await rows("select tableoid::regclass::text as part from run_events where type = 'late clock'")).toEqual([{ part: partition.name }]);
});

test.runIf(Boolean(process.env.DATABASE_URL))("an append open on today's partition neither waits for the rewrite nor holds it up", async () => {
  const firstDay = Math.floor(Date.now() / DAY) * DAY + DAY;
  await ensurePartitions(t.db, { table: "run_events", period: "day", until: new Date(firstDay + 6 * DAY) });
  const [agent] = await rows<{ id: string }>("insert into agents (project_id, name, model, max_turns, timeout_ms) values ($1, 'b', 'scripted', 3, 1000) returning id", [DEFAULT_PROJECT_ID]);
  const run = async () => (await rows<{ id: string }>("insert into runs (project_id, agent_id, prompt) values ($1, $2, 'p') returning id", [DEFAULT_PROJECT_ID, agent.id]))[0].id;
  const [kept, expired, live] = [await run(), await run(), await run()];
  const day = new Date(firstDay + 4 * DAY);
  for (const runId of [kept, expired]) await t.execute("insert into run_events (run_id, seq, type, ts) values ($1, 1, 'tool.pre', $2)", [runId, new Date(day.getTime() + 1_000).toISOString()]);
  for (let seq = 2; seq <= 9; seq++) await t.execute("insert into run_events (run_id, seq, type, ts) values ($1, $2, 'tool.pre', $3)", [expired, seq, new Date(day.getTime() + seq * 1_000).toISOString()]);
  const partition = (await listPartitions(t.db, { table: "run_events" })).find((p) => p.lower?.getTime() === day.getTime())!;

  // Another connection appends to today's partition (through the parent, as every append does) and keeps its transaction open.
  const appender = new pg.Client({ connectionString: t.databaseUrl });
  await appender.connect();
  try {
    await appender.query("begin");
    await appender.query("insert into run_events (run_id, seq, type) values ($1, 1, 'session.start')", [live]);
    const started = performance.now();
    expect(await rewriteEventPartition(t.db, { partition, keptRunIds: [kept] })).toBe(9);
    // Within the DDL lock's first attempts: it never queued behind the open append.
    expect(performance.now() - started).toBeLessThan(5_000);
    // And the append, still open, is not held up by what the rewrite left: a second row goes in at once.
    await appender.query("set local lock_timeout = '1s'");
    await appender.query("insert into run_events (run_id, seq, type) values ($1, 2, 'tool.pre')", [live]);
    await appender.query("commit");
  } finally {
    await appender.end();
  }
  expect(await rows("select run_id, seq from run_events where run_id = any($1::uuid[]) order by run_id = $2 desc, seq", [[kept, expired, live], live])).toEqual([
    { run_id: live, seq: 1 },
    { run_id: live, seq: 2 },
    { run_id: kept, seq: 1 },
  ]);
});
