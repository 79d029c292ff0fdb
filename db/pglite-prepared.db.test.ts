/**
 * Statements PREPAREd on the embedded database are named once per process: server.ts and Next's
 * bundled route handlers each load their own copy of db/client.ts but share one PGlite instance,
 * and a counter per copy handed out `hp_statement_1` twice (a bridged session's first event
 * failed with "prepared statement already exists" once a worker run had written).
 */
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { openDatabase, type DbHandle } from "./client";

let handle: DbHandle;
beforeAll(async () => {
  handle = await openDatabase({ dataDir: "memory://" });
});
afterAll(async () => handle.close());

test("two copies of the client module prepare on one PGlite database without taking each other's names", async () => {
  if (handle.kind !== "pglite") return;
  const first = await import("./client");
  vi.resetModules();
  const second = await import("./client");
  expect(second).not.toBe(first);
  expect(await first.executeStatement(handle.db, "select $1::int + 1 as n", [1])).toEqual([{ n: 2 }]);
  expect(await second.executeStatement(handle.db, "select $1::int * 10 as n", [3])).toEqual([{ n: 30 }]);
  expect(await first.executeStatement(handle.db, "select $1::int * 10 as n", [4])).toEqual([{ n: 40 }]);
  expect(await second.executeStatement(handle.db, "select $1::int + 1 as n", [5])).toEqual([{ n: 6 }]);
});
