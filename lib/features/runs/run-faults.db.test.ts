/**
 * Faults of the database that heal are not the run's failures: a write that fails now and then
 * (a connection that blinks) delays a run, and every step stored resets the count, so only a
 * fault that persists ends it.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { createRun } from "@/db/queries/runs";
import { addAgent, createRunHarness, expectWellFormedStream, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";

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
  const run = await createRun(h.t.db, { agentId: agent.id, prompt: "go", source: "test" });
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
