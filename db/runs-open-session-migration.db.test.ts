/**
 * drizzle/0037_runs_open_session.sql on an installation with bridged sessions: migrated to 0036,
 * filled with runs of outside sessions (one with two open runs, which the advisory lock of that
 * time should never have let happen but a migration must not stop on), then migrated on. The
 * older open run of the doubled session is finished as superseded, nothing else changes, and the
 * new unique index refuses a second open run of a session from then on.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { migrateDatabase } from "@/db/migrate";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import type { TestDatabase } from "@/test/database";
import { databaseThrough } from "@/test/old-migrations";

let t: TestDatabase;
let drop: () => Promise<void>;

async function rows<T = Record<string, unknown>>(text: string, params?: unknown[]) {
  return (await t.execute(text, params)).rows as T[];
}

beforeAll(async () => {
  ({ t, drop } = await databaseThrough(36));
});
afterAll(async () => {
  await drop?.();
});

test("a session's doubled open run is finished as superseded, the rest is kept as it was, and a second open run is refused from then on", async () => {
  const [agent] = await rows<{ id: string; project_id: string }>(
    "insert into agents (project_id, name, model, max_turns, timeout_ms) values ($1, 'coder', 'scripted', 3, 10000) returning id, project_id",
    [DEFAULT_PROJECT_ID],
  );
  const run = async (session: string | null, actor: string | null, status: string, createdAt: string, outcome: string | null = null) => {
    const [row] = await rows<{ id: string }>(
      `insert into runs (project_id, agent_id, source, external_session_id, status, outcome, prompt, actor_key, created_at)
       values ($7, $1, 'claude-code', $2, $3, $4, 'p', $5, $6::timestamptz) returning id`,
      [agent.id, session, status, outcome, actor, createdAt, agent.project_id],
    );
    return row.id;
  };
  const older = await run("s-1", "user:ada", "running", "2026-11-01T10:00:00Z");
  const newer = await run("s-1", "user:ada", "waiting_approval", "2026-11-01T10:05:00Z");
  const ended = await run("s-1", "user:ada", "finished", "2026-11-01T09:00:00Z", "completed");
  const bobs = await run("s-1", "user:bob", "running", "2026-11-01T10:01:00Z");
  // Runs from before people had no actor key: never in each other's way.
  const legacyA = await run("s-2", null, "running", "2026-10-01T10:00:00Z");
  const legacyB = await run("s-2", null, "running", "2026-10-01T10:01:00Z");
  // An own agent's runs have no session: not touched.
  const own = await run(null, null, "queued", "2026-11-01T11:00:00Z");

  await migrateDatabase(t);

  const after = await rows<{ id: string; status: string; outcome: string | null; reason: string | null; finished: boolean }>(
    "select id, status, outcome, reason, finished_at is not null as finished from runs order by created_at",
  );
  const byId = Object.fromEntries(after.map((r) => [r.id, r]));
  expect(byId[older]).toEqual({ id: older, status: "finished", outcome: "cancelled", reason: "superseded by a newer open run of the same session", finished: true });
  expect(byId[newer]).toMatchObject({ status: "waiting_approval", outcome: null, finished: false });
  expect(byId[ended]).toMatchObject({ status: "finished", outcome: "completed", reason: null, finished: false });
  expect(byId[bobs]).toMatchObject({ status: "running", outcome: null });
  expect(byId[legacyA]).toMatchObject({ status: "running" });
  expect(byId[legacyB]).toMatchObject({ status: "running" });
  expect(byId[own]).toMatchObject({ status: "queued" });
  expect(after).toHaveLength(7);

  // From now on a session has one open run: a second is refused, a finished one is not in the way.
  await expect(run("s-1", "user:bob", "running", "2026-11-02T10:00:00Z")).rejects.toThrow(/runs_open_session_uq/);
  await run("s-1", "user:carol", "running", "2026-11-02T10:00:00Z");
  await t.execute("update runs set status = 'finished', outcome = 'completed' where id = $1", [bobs]);
  await run("s-1", "user:bob", "running", "2026-11-02T10:01:00Z");
});
