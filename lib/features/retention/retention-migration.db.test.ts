/**
 * drizzle/0015_retention.sql on a database that has rows: migrated to 0014 first, filled (runs,
 * events, a transcript, ledger and audit rows sealed into their chains), then migrated on. Every
 * row is still there, unchanged, in the first partition; the chains verify to the same head; ids
 * carry on; deleting a run still deletes its events; retention works on the old rows.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { migrateDatabase } from "@/db/migrate";
import { appendRunRecords } from "@/db/queries/run-events";
import { verifyChain } from "@/db/queries/chain-verification";
import { listPartitions } from "@/db/queries/partitions";
import { setSetting } from "@/db/queries/settings";
import { applyRetention } from "@/lib/features/retention/retention-pass";
import { RETENTION_SETTING_KEY } from "@/lib/features/retention/retention-settings";
import type { TestDatabase } from "@/test/database";
import { databaseThrough, sealByHand } from "@/test/old-migrations";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

const DAY = 86_400_000;
let t: TestDatabase;
let drop: () => Promise<void>;

async function rows<T = Record<string, unknown>>(text: string, params?: unknown[]) {
  return (await t.execute(text, params)).rows as T[];
}

beforeAll(async () => {
  ({ t, drop } = await databaseThrough(14));
});
afterAll(async () => {
  await drop?.();
});

test("rows written before 0015 are all kept, in the first partitions; chains, ids and deletes carry on", async () => {
  expect(await rows("select to_regclass('chain_gaps') as t")).toEqual([{ t: null }]);
  const [agent] = await rows<{ id: string }>("insert into agents (name, model, max_turns, timeout_ms) values ('old', 'scripted', 3, 10000) returning id");
  const runIds: string[] = [];
  for (const [i, ageDays] of [40, 2].entries()) {
    const created = new Date(Date.now() - ageDays * DAY);
    const [run] = await rows<{ id: string }>(
      "insert into runs (agent_id, prompt, status, outcome, created_at, finished_at, last_seq) values ($1, $2, 'finished', 'completed', $3, $3, 3) returning id",
      [agent.id, `run ${i}`, created.toISOString()],
    );
    runIds.push(run.id);
    for (const seq of [1, 2, 3]) {
      await t.execute("insert into run_events (run_id, seq, type, ts, data) values ($1, $2, 'tool.pre', $3, $4)", [
        run.id,
        seq,
        new Date(created.getTime() + seq * 1000).toISOString(),
        JSON.stringify({ seq, nested: { a: [1, "ü"] } }),
      ]);
    }
    await t.execute("insert into run_messages (run_id, stage, idx, message) values ($1, 0, 0, '{\"role\":\"user\"}')", [run.id]);
    await t.execute("insert into hook_invocations (run_id, event_seq, event, hook_key, matched, verdict, created_at) values ($1, 1, 'tool.pre', 'guard', true, 'allow', $2)", [
      run.id,
      created.toISOString(),
    ]);
  }
  // An event stamped five days ahead (a clock far off): the first partition reaches past it.
  const future = new Date(Date.now() + 5 * DAY);
  await t.execute("insert into run_events (run_id, seq, type, ts) values ($1, 4, 'late clock', $2)", [runIds[1], future.toISOString()]);
  await t.execute("insert into audit_log (actor, action, entity_type, entity_id, after) values ('ops', 'agent.create', 'agent', $1, '{\"z\":1,\"a\":[2]}')", [agent.id]);
  const ledgerHead = await sealByHand(t, "hook_invocations");
  const auditHead = await sealByHand(t, "audit_log");
  const before = {
    events: await rows("select * from run_events order by id"),
    ledger: await rows("select * from hook_invocations order by id"),
    audit: await rows("select * from audit_log order by id"),
    messages: await rows("select * from run_messages order by run_id"),
  };

  await migrateDatabase(t);

  expect(await rows("select * from run_events order by id")).toEqual(before.events);
  // 0016 puts every older ledger and audit row in the default project, 0022 gives ledger rows an
  // empty actor, 0031 an empty modification; nothing else of them changes.
  const withoutProject = (list: Record<string, unknown>[]) => list.map(({ project_id: _p, ...rest }) => rest);
  const ledgerAfter = (await rows("select * from hook_invocations order by id")).map(({ actor_key, actor, modification, ...rest }) => {
    expect([actor_key, actor, modification]).toEqual([null, null, null]);
    return rest;
  });
  const auditAfter = await rows("select * from audit_log order by id");
  expect(withoutProject(ledgerAfter)).toEqual(before.ledger);
  expect(withoutProject(auditAfter)).toEqual(before.audit);
  expect(new Set([...ledgerAfter, ...auditAfter].map((r) => r.project_id))).toEqual(new Set([DEFAULT_PROJECT_ID]));
  expect(await rows("select * from run_messages order by run_id")).toEqual(before.messages);
  const where = await rows<{ part: string; n: number }>("select tableoid::regclass::text as part, count(*)::int as n from run_events group by 1");
  expect(where).toEqual([{ part: "run_events_initial", n: 7 }]);
  const initial = (await listPartitions(t.db, { table: "run_events" })).find((p) => p.name === "run_events_initial")!;
  expect(initial).toMatchObject({ lower: undefined, upper: new Date(Math.floor(future.getTime() / DAY) * DAY + DAY) });
  expect((await listPartitions(t.db, { table: "hook_invocations" })).map((p) => p.name)).toEqual(["hook_invocations_initial", "hook_invocations_default"]);

  for (const [table, head] of [["hook_invocations", ledgerHead], ["audit_log", auditHead]] as const) {
    const report = await verifyChain(t.db, { table });
    expect(report.firstBroken, table).toBeUndefined();
    expect(report.head, table).toEqual(head);
  }

  // Ids carry on from the old sequences; the hot path writes into the partitioned tables.
  const maxEvent = Math.max(...before.events.map((e) => Number(e.id)));
  await appendRunRecords(t.db, {
    runId: runIds[1],
    events: [{ type: "after the migration", data: {} }],
    ledger: [{ runId: runIds[1], eventSeq: 5, event: "tool.pre", hookKey: "guard", matched: true, failed: false, timedOut: false, ignored: false }],
  });
  const [added] = await rows<{ id: number; seq: number }>("select id::int as id, seq from run_events where type = 'after the migration'");
  expect(added.id).toBeGreaterThan(maxEvent);
  expect(added.seq).toBe(4);

  // Retention on the migrated rows: the 40-day-old run goes (row by row: its partition also holds
  // the recent one), its events with it, through the first partition.
  await setSetting(t.db, { key: RETENTION_SETTING_KEY, value: { runDays: 30, ledgerDays: 0, auditDays: 0 } });
  const report = await applyRetention(t.db);
  expect(report.runs).toEqual({ deleted: 1, events: 3, partitionsDropped: [] });
  expect(await rows("select prompt from runs")).toEqual([{ prompt: "run 1" }]);
  expect(await rows("select id from run_events where run_id = $1", [runIds[0]])).toEqual([]);
  // And deleting a run deletes its events (the trigger that replaced the foreign key).
  await t.execute("delete from runs where id = $1", [runIds[1]]);
  expect(await rows("select id from run_events")).toEqual([]);
});
