/**
 * Faults of the database that heal are not the run's failures: a write that fails now and then
 * (a connection that blinks) delays a run, and every step stored resets the count, so only a
 * fault that persists ends it.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { isDatabaseUnavailable } from "@/db/database-unavailable";
import { createRun } from "@/db/queries/runs";
import { addAgent, createRunHarness, expectWellFormedStream, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

let h: RunHarness;

beforeAll(async () => {
  h = await createRunHarness({ sweepMs: 100 });
  // Each listed seq fails its first insert only: sequences are not rolled back with the failed write.
  await h.t.execute(`
    create table injected_faults (seq integer primary key, hits text not null);
    create or replace function fail_listed_seq_once() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from injected_faults f where f.seq = new.seq and nextval(f.hits::regclass) = 1) then
        raise exception 'injected fault at seq %', new.seq;
      end if;
      return new;
    end $$;
    create trigger fail_listed_seq_once before insert on run_events for each row execute function fail_listed_seq_once();
  `);
});
afterAll(async () => {
  await h.close();
});

test("five healed write failures over one run: it completes, each step recorded once", async () => {
  const turns = 8;
  const script = [
    ...Array.from({ length: turns }, (_, i) => ({ text: `step ${i}`, toolCalls: [{ name: "list_files", input: {} }], usage: { inputTokens: 5, outputTokens: 1 } })),
    { text: "done" },
  ];
  const agent = await addAgent(h.t, { name: "blinks", tools: ["list_files"], script, maxTurns: 20 });
  for (const seq of [4, 11, 18, 25, 32]) {
    await h.t.execute(`create sequence fault_hits_${seq}; insert into injected_faults values (${seq}, 'fault_hits_${seq}')`);
  }
  const run = await createRun(h.t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "go", source: "test" });
  await h.queue.enqueue(run.id);
  const done = await waitForRun(h.t, run.id, (r) => r.status === "finished", 60_000);
  expect(done).toMatchObject({ outcome: "completed", response: "done", failures: 0 });
  const { rows } = await h.t.execute(`select seq, last_value from injected_faults f join lateral (select last_value from pg_sequences where sequencename = f.hits) s on true order by seq`);
  // Every fault fired once (1), then the retried write went through (2).
  expect(rows.map((r) => Number(r.last_value))).toEqual([2, 2, 2, 2, 2]);
  const events = await runEvents(h.t, run.id);
  expectWellFormedStream(events);
  expect(events.filter((e) => e.type === "tool.post")).toHaveLength(turns);
  expect(events.filter((e) => e.type === "model.post")).toHaveLength(turns + 1);
});

/** This test's own reads share the pool whose connections it kills: they try again. */
async function retrying<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || attempt > 20) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Real connection drops (PostgreSQL): every backend of the run's database is terminated five times
 * while it works, as a restarted server or a failover would. Each drop costs a retried step at
 * most; the run completes with every step recorded once.
 */
test.runIf(Boolean(process.env.DATABASE_URL))("five healed connection drops (pg_terminate_backend): the run completes, each step recorded once", async () => {
  const turns = 400;
  const script = [...Array.from({ length: turns }, (_, i) => ({ text: `step ${i}`, toolCalls: [{ name: "list_files", input: {} }] })), { text: "done" }];
  const agent = await addAgent(h.t, { name: "dropped", tools: ["list_files"], script, maxTurns: 1000 });
  const run = await createRun(h.t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "go", source: "test" });
  await h.queue.enqueue(run.id);
  const postgres = (await import("postgres")).default;
  // From outside the pool: a connection to the server's maintenance database.
  const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  const database = new URL(h.t.databaseUrl!).pathname.slice(1);
  let drops = 0;
  let terminated = 0;
  try {
    for (let steps = 0; drops < 5; ) {
      const posts = (await retrying(() => runEvents(h.t, run.id))).filter((e) => e.type === "tool.post").length;
      if (posts > steps) {
        const killed = await admin`select count(*)::int as n from (select pg_terminate_backend(pid) from pg_stat_activity where datname = ${database} and pid <> pg_backend_pid()) k`;
        terminated += killed[0].n;
        drops++;
        steps = posts + 20;
      }
      await new Promise((r) => setTimeout(r, 30));
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
  const done = await retrying(() => waitForRun(h.t, run.id, (r) => r.status === "finished", 90_000));
  expect(drops).toBe(5);
  expect(terminated).toBeGreaterThanOrEqual(5);
  expect(done).toMatchObject({ outcome: "completed", response: "done" });
  const events = await runEvents(h.t, run.id);
  expectWellFormedStream(events);
  expect(events.filter((e) => e.type === "tool.post")).toHaveLength(turns);
  expect(events.filter((e) => e.type === "model.post")).toHaveLength(turns + 1);
}, 120_000);
