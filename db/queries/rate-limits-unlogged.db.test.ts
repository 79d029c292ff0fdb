/**
 * A limit hook's counts live in an unlogged table (drizzle/0033): a take writes no WAL of its own,
 * so it commits without waiting for a WAL flush. On the embedded database, where each flush is an
 * fsync that blocks the whole process, 20 takes sync at most twice (in the background) where the
 * same takes on the table logged sync 20 times; the counting itself is unchanged.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openDatabase, type DbHandle } from "@/db/client";
import { migrateDatabase } from "@/db/migrate";
import { pgliteSyncCount } from "@/db/pglite-durability";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { takeOne } from "@/test/rate-limit-take";
import { DEFAULT_PROJECT_ID } from "../schema";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

test("the buckets are unlogged, and the limit still counts: max through, then refusals with the count", async () => {
  const [{ persistence }] = (await t.execute("select relpersistence as persistence from pg_class where relname = 'rate_limit_buckets'")).rows as { persistence: string }[];
  expect(persistence).toBe("u");
  const takes = [];
  for (let i = 0; i < 5; i++) takes.push(await takeOne(t.db, { projectId: DEFAULT_PROJECT_ID, key: "person/a", max: 3, windowMs: 60_000 }));
  expect(takes).toEqual([
    { allowed: true, count: 1 },
    { allowed: true, count: 2 },
    { allowed: true, count: 3 },
    { allowed: false, count: 3 },
    { allowed: false, count: 3 },
  ]);
  // Another key has a window of its own.
  expect(await takeOne(t.db, { projectId: DEFAULT_PROJECT_ID, key: "person/b", max: 3, windowMs: 60_000 })).toEqual({ allowed: true, count: 1 });
});

test.runIf(!process.env.DATABASE_URL)("on the embedded database with fsync on, takes do not wait for an fsync each; the same takes on a logged table do", async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "hookplane-unlogged-"));
  let handle: DbHandle | undefined;
  try {
    handle = await openDatabase({ dataDir });
    await migrateDatabase(handle);
    const syncsOf = async (key: string) => {
      const before = pgliteSyncCount();
      for (let i = 0; i < 20; i++) await takeOne(handle!.db, { projectId: DEFAULT_PROJECT_ID, key, max: 100, windowMs: 60_000 });
      return pgliteSyncCount() - before;
    };
    // Unlogged: the WAL is flushed now and then in the background, not once per take.
    const unlogged = await syncsOf("person/unlogged");
    expect(unlogged).toBeLessThanOrEqual(2);
    // The wrong side, so the count is known to count: the same table logged syncs every take.
    await handle.execute("alter table rate_limit_buckets set logged");
    const logged = await syncsOf("person/logged");
    expect(logged).toBeGreaterThanOrEqual(20);
    const rows = (await handle.execute("select key, sum(hits)::integer as hits from rate_limit_buckets group by key order by key")).rows;
    expect(rows).toEqual([
      { key: "person/logged", hits: 20 },
      { key: "person/unlogged", hits: 20 },
    ]);
  } finally {
    await handle?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
