/**
 * A new embedded database is created by a child process (db/pglite-memory.ts): the folder holds a
 * database before this process opens it, opening it migrates and serves, and a folder that cannot
 * hold one is refused with a message that says where. The memory figures are bench:start's. With
 * DATABASE_URL set, openDatabase opens PostgreSQL, so the tests that open one run on PGlite only.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, expect, test } from "vitest";
import { openDatabase } from "./client";
import { migrateDatabase } from "./migrate";
import { createDatabaseApart, holdsDatabase } from "./pglite-memory";

const root = mkdtempSync(path.join(tmpdir(), "hookplane-pglite-new-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const onPglite = !process.env.DATABASE_URL;

test.runIf(onPglite)("a new folder gets its database from a child process; this process opens it, migrated, and a second open finds it", async () => {
  const dataDir = path.join(root, "data");
  expect(holdsDatabase(dataDir)).toBe(false);
  createDatabaseApart(dataDir, [...(PGlite.defaultStartParams ?? []), "-c", "shared_buffers=16MB"]);
  expect(holdsDatabase(dataDir)).toBe(true);

  const first = await openDatabase({ dataDir });
  await migrateDatabase(first);
  await first.execute("insert into settings (key, value) values ('pglite-memory-test', '1'::jsonb)");
  await first.close();
  // Created once: a second call leaves the database as it is.
  createDatabaseApart(dataDir, []);
  const second = await openDatabase({ dataDir });
  expect((await second.execute("select value from settings where key = 'pglite-memory-test'")).rows).toEqual([{ value: 1 }]);
  await second.close();
}, 60_000);

test.runIf(onPglite)("openDatabase on a folder that does not exist yet creates it the same way", async () => {
  const dataDir = path.join(root, "nested", "fresh");
  const handle = await openDatabase({ dataDir });
  expect(holdsDatabase(dataDir)).toBe(true);
  await migrateDatabase(handle);
  expect((await handle.execute("select slug from projects")).rows).toEqual([{ slug: "default" }]);
  await handle.close();
}, 60_000);

test("a folder that cannot hold a database is refused, naming it", () => {
  const blocked = path.join(root, "a-file");
  writeFileSync(blocked, "not a folder");
  expect(() => createDatabaseApart(path.join(blocked, "data"), [])).toThrow(/could not create the embedded database in .*a-file\/data: Error: ENOTDIR/);
});
