/**
 * Group commit (executeStatement's `commitGroup`, used by appendRunRecords): many appends at once,
 * to many runs and several to one run, each answered with its own seq and each stored once; one
 * whose statement fails (a run id that is no uuid) fails alone, and the appends that went in the
 * same group are all stored. They share commits, counted: on PGlite fewer simple queries than
 * appends, on PostgreSQL fewer groups (db/postgres-group-commit.ts).
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { executeStatement } from "./client";
import { groupCommitOf } from "./postgres-group-commit";
import { createAgent } from "./queries/agents";
import { appendRunRecords } from "./queries/run-events";
import { createRun } from "./queries/runs";
import { DEFAULT_PROJECT_ID } from "./schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";

let t: TestDatabase;
const runIds: string[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "grouped" }) }))!;
  for (let i = 0; i < 20; i++) runIds.push((await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: `run ${i}`, source: "test" })).id);
});
afterAll(async () => {
  await t?.drop();
});

test("200 appends at once over 20 runs, one of them broken: each gets its seq, the broken one alone fails, nothing is lost or doubled", async () => {
  const client = (t.db as unknown as { $client?: { exec?: (q: string) => Promise<unknown> } }).$client;
  let groups = 0;
  if (t.kind === "pglite" && client?.exec) {
    const exec = client.exec.bind(client);
    client.exec = (q: string) => {
      groups++;
      return exec(q);
    };
  }
  const pgGroups = groupCommitOf((t.db as unknown as { $client?: unknown }).$client);
  const pgGroupsBefore = pgGroups?.groups ?? 0;
  const appends = Array.from({ length: 200 }, (_, i) =>
    appendRunRecords(t.db, { runId: i === 117 ? "not-a-uuid" : runIds[i % 20], events: [{ type: "tool.pre", data: { n: i } }, { type: "tool.post", data: { n: i } }] }),
  );
  const results = await Promise.allSettled(appends);
  const failed = results.flatMap((r, i) => (r.status === "rejected" ? [i] : []));
  expect(failed).toEqual([117]);
  expect(String((results[117] as PromiseRejectedResult).reason)).toMatch(/uuid/);
  // Each run's seqs: gapless from 1, each append's two events adjacent and in its order, once.
  for (const [r, runId] of runIds.entries()) {
    const rows = (await t.execute("select seq, type, (data->>'n')::integer as n from run_events where run_id = $1 order by seq", [runId])).rows as { seq: number; type: string; n: number }[];
    const expected = Array.from({ length: 10 }, (_, k) => r + 20 * k).filter((n) => n !== 117);
    expect(rows.map((x) => x.seq)).toEqual(Array.from({ length: expected.length * 2 }, (_, k) => k + 1));
    expect(new Set(rows.map((x) => x.n))).toEqual(new Set(expected));
    for (let k = 0; k < rows.length; k += 2) expect([rows[k].type, rows[k + 1].type, rows[k + 1].n]).toEqual(["tool.pre", "tool.post", rows[k].n]);
    // The answer each append got is its own second event's seq.
    for (const n of expected) expect((results[n] as PromiseFulfilledResult<number>).value).toBe(rows.find((x) => x.n === n && x.type === "tool.post")!.seq);
    const [{ last_seq }] = (await t.execute("select last_seq from runs where id = $1", [runId])).rows as { last_seq: number }[];
    expect(last_seq).toBe(expected.length * 2);
  }
  if (t.kind === "pglite") {
    expect(groups).toBeGreaterThan(0);
    expect(groups).toBeLessThan(100);
  } else {
    expect(pgGroups).toBeDefined();
    expect(pgGroups!.groups - pgGroupsBefore).toBeGreaterThan(0);
    expect(pgGroups!.groups - pgGroupsBefore).toBeLessThan(100);
  }
});

test("appends to distinct runs in one group share one execution; two to one run go in two, each with its own seqs", async () => {
  // Executions counted whether grouped or alone (a failed group's statements run again alone).
  const client = (t.db as unknown as { $client?: { exec?: (q: string) => Promise<unknown>; query?: (q: string, p?: unknown[]) => Promise<unknown> } }).$client;
  let groups = 0;
  let executions = 0;
  if (t.kind === "pglite" && client?.exec && client.query) {
    const exec = client.exec.bind(client);
    const query = client.query.bind(client);
    client.exec = (q: string) => {
      groups++;
      executions += q.split(";\n").length;
      return exec(q);
    };
    client.query = (q: string, p?: unknown[]) => {
      if (q.startsWith("execute ")) executions++;
      return query(q, p);
    };
  }
  const pgGroups = groupCommitOf((t.db as unknown as { $client?: unknown }).$client);
  const before = { groups: pgGroups?.groups ?? 0, executions: (pgGroups?.executions ?? 0) + (pgGroups?.alone ?? 0) };
  const lastSeq = async (runId: string) => ((await t.execute("select last_seq from runs where id = $1", [runId])).rows as { last_seq: number }[])[0].last_seq;
  const seqsBefore = await Promise.all(runIds.map(lastSeq));
  // Two appends to each of the 20 runs, all at once: the second of each run cannot share the first's batch.
  const appends = runIds.flatMap((runId) => [0, 1].map((k) => appendRunRecords(t.db, { runId, events: [{ type: "model.pre", data: { k } }], ledger: [] })));
  const seqs = await Promise.all(appends);
  if (pgGroups) {
    groups = pgGroups.groups - before.groups;
    executions = pgGroups.executions + pgGroups.alone - before.executions;
  }
  expect(groups).toBeGreaterThan(0);
  // Forty appends; batched, each group holds at most two EXECUTEs of the append (one per repeat of a run).
  expect(executions).toBeLessThan(40);
  for (const [r, runId] of runIds.entries()) {
    const mine = [seqs[2 * r], seqs[2 * r + 1]].sort((x, y) => x - y);
    expect(mine).toEqual([seqsBefore[r] + 1, seqsBefore[r] + 2]);
    expect(await lastSeq(runId)).toBe(seqsBefore[r] + 2);
    const rows = (await t.execute("select seq, (data->>'k')::integer as k from run_events where run_id = $1 and type = 'model.pre' order by seq", [runId])).rows as { seq: number; k: number }[];
    expect(rows.map((x) => x.seq)).toEqual(mine);
    expect(rows.map((x) => x.k).sort()).toEqual([0, 1]);
    // Each append answered with the seq of its own event.
    for (const k of [0, 1]) expect(seqs[2 * r + k]).toBe(rows.find((x) => x.k === k)!.seq);
  }
});

test("a batched call whose parameter is no JSON array is refused alone; the appends sent beside it are stored", async () => {
  const [runId] = runIds;
  const before = ((await t.execute("select last_seq from runs where id = $1", [runId])).rows as { last_seq: number }[])[0].last_seq;
  const [bad, good] = await Promise.allSettled([
    executeStatement(t.db, "select $1::text as batch_key", ['{"r":"x"}'], { batchKey: "x" }),
    appendRunRecords(t.db, { runId, events: [{ type: "model.post", data: {} }] }),
  ]);
  expect(bad.status).toBe("rejected");
  expect(String((bad as PromiseRejectedResult).reason)).toMatch(/parameter \$1 must be a JSON array/);
  expect(good).toEqual({ status: "fulfilled", value: before + 1 });
  expect((await t.execute("select count(*)::integer as n from run_events where run_id = $1 and seq = $2 and type = 'model.post'", [runId, before + 1])).rows).toEqual([{ n: 1 }]);
});
