/**
 * executeStatement from another copy of db/client.ts (what Next's bundled route handlers are: the
 * handle was opened by server.ts's copy), hundreds at once on a pool of 10 connections, with
 * named statements on and off (PgBouncer in transaction mode): no statement fails because of the
 * connection it went to (issue 26: `prepared statement "hp_statement_1" does not exist`), every
 * write lands once, and on PostgreSQL nothing took PGlite's PREPARE/EXECUTE path. With named
 * statements the copies share the pool's group commit (their statements went in groups, each
 * EXECUTE on the connection that PREPAREd it); without, the pool spreads them over connections.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { setEnv } from "@/test/config-env";
import { executeStatement } from "./client";

const CONCURRENT = 300;

for (const prepare of ["true", "false"]) {
  describe(`HOOKPLANE_DB_PREPARE=${prepare}, pool of 10`, () => {
    let t: TestDatabase;
    const statements: string[] = [];
    let restore: () => void;
    beforeAll(async () => {
      restore = setEnv({ HOOKPLANE_DB_PREPARE: prepare, HOOKPLANE_DB_POOL: "10" });
      t = await createTestDatabase({ onStatement: (text) => statements.push(text) });
      await t.execute("create table copy_probe (n integer primary key, label text not null)");
    });
    afterAll(async () => {
      await t?.drop();
      restore?.();
    });

    test("statements from a second copy of the module, 300 at once, all succeed and land once", async () => {
      vi.resetModules();
      const copy = (await import("./client")) as typeof import("./client");
      expect(copy.executeStatement).not.toBe(executeStatement);
      const results = await Promise.allSettled(
        Array.from({ length: CONCURRENT }, (_, n) =>
          (n % 2 === 0 ? copy.executeStatement : executeStatement)<{ n: number }>(t.db, "insert into copy_probe (n, label) values ($1, $2) returning n", [n, `row ${n}`]),
        ),
      );
      const failed = results.filter((r) => r.status === "rejected");
      expect(failed.map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
      expect(results.map((r) => (r as PromiseFulfilledResult<{ n: number }[]>).value[0].n)).toEqual(Array.from({ length: CONCURRENT }, (_, n) => n));
      const reads = await Promise.all(Array.from({ length: CONCURRENT }, (_, n) => copy.executeStatement<{ label: string }>(t.db, "select label from copy_probe where n = $1", [n])));
      expect(reads.map((rows) => rows[0]?.label)).toEqual(Array.from({ length: CONCURRENT }, (_, n) => `row ${n}`));
      const [{ count }] = (await t.execute("select count(*)::integer as count from copy_probe")).rows as { count: number }[];
      expect(count).toBe(CONCURRENT);
      if (t.kind === "postgres") {
        // None went out as PGlite's PREPARE/EXECUTE.
        expect(statements.filter((s) => /^\s*(prepare|execute)\s+hp_statement_/i.test(s))).toEqual([]);
        const grouped = statements.filter((s) => /^execute hp_group_\d+\(.*\);\nexecute hp_group_/s.test(s));
        if (prepare === "true") expect(grouped.length).toBeGreaterThan(0);
        // Without named statements nothing is grouped, and the pool really spread them over several connections.
        else expect([grouped.length, t.poolStats().total > 1]).toEqual([0, true]);
      }
    });
  });
}
