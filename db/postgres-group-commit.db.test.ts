/**
 * Group commit on PostgreSQL's pool (db/postgres-group-commit.ts), from the wrong side: a group
 * whose connection is killed mid-flight, a statement that fails inside a group, one over the
 * statement timeout, a deadlock between two groups, values that cannot be written as literals, a text PostgreSQL will not PREPARE, and
 * the statements of one turn sent as one query. Each caller gets its own answer or its own error,
 * and nothing lands twice.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { setEnv } from "@/test/config-env";
import { executeStatement, openDatabase } from "./client";
import { groupCommitOf } from "./postgres-group-commit";

describe.runIf(process.env.DATABASE_URL)("group commit on PostgreSQL", () => {
  let t: TestDatabase;
  const sent: string[] = [];
  beforeAll(async () => {
    t = await createTestDatabase({ onStatement: (text) => sent.push(text) });
    await t.execute("create table group_probe (n integer primary key, label text not null, tags text[])");
  });
  afterAll(async () => {
    await t?.drop();
  });

  const insert = (n: number, label: string) => executeStatement<{ n: number }>(t.db, "insert into group_probe (n, label) values ($1, $2) returning n", [n, label]);
  const count = async () => Number(((await t.execute("select count(*)::integer as c from group_probe")).rows[0] as { c: number }).c);

  test("the statements of one turn go as one query of EXECUTEs; a lone statement goes alone, as before", async () => {
    const group = groupCommitOf((t.db as unknown as { $client: unknown }).$client)!;
    const before = group.groups;
    sent.length = 0;
    const rows = await Promise.all(Array.from({ length: 20 }, (_, i) => insert(i, `a'$v$b ${i}`)));
    expect(rows.map((r) => r[0].n)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(group.groups).toBeGreaterThan(before);
    const batches = sent.filter((s) => s.startsWith("execute hp_group_"));
    expect(batches.length).toBeGreaterThan(0);
    expect(batches.length).toBeLessThan(20);
    // Quotes and the literal's own tag in a value arrive intact.
    const labels = (await t.execute("select label from group_probe where n < 20 order by n")).rows.map((r) => (r as { label: string }).label);
    expect(labels).toEqual(Array.from({ length: 20 }, (_, i) => `a'$v$b ${i}`));
    sent.length = 0;
    await insert(100, "alone");
    expect(sent).toEqual(["insert into group_probe (n, label) values ($1, $2) returning n"]);
  });

  test("one failing statement in a group fails alone; the others land once", async () => {
    const results = await Promise.allSettled([insert(200, "x"), insert(201, "y"), insert(200, "duplicate"), insert(202, "z")]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/duplicate key/);
    const rows = (await t.execute("select n, label from group_probe where n between 200 and 202 order by n")).rows;
    expect(rows).toEqual([
      { n: 200, label: "x" },
      { n: 201, label: "y" },
      { n: 202, label: "z" },
    ]);
  });

  test("a statement over the statement timeout inside a group fails alone; the others land once", async () => {
    const restore = setEnv({ HOOKPLANE_DB_STATEMENT_TIMEOUT_MS: "400" });
    const short = await openDatabase({ databaseUrl: t.databaseUrl! });
    restore();
    try {
      const put = (n: number) => executeStatement(short.db, "insert into group_probe (n, label) values ($1, $2)", [n, `timed ${n}`]);
      const settled = await Promise.allSettled([put(800), executeStatement(short.db, "select pg_sleep($1)", [1]), put(801)]);
      expect(settled.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect(String((settled[1] as PromiseRejectedResult).reason)).toMatch(/statement timeout/);
      expect((await t.execute("select n from group_probe where n in (800, 801) order by n")).rows).toEqual([{ n: 800 }, { n: 801 }]);
    } finally {
      await short.close();
    }
  });

  test("an array, a date or a NUL goes as a parameter of its own statement, beside a group", async () => {
    const tags = executeStatement<{ tags: string[] }>(t.db, "insert into group_probe (n, label, tags) values ($1, $2, $3) returning tags", [300, "tags", ["a", "b,c", 'd"e']]);
    const nul = executeStatement(t.db, "insert into group_probe (n, label) values ($1, $2)", [301, "a\u0000b"]);
    const plain = insert(302, "plain");
    const [tagged, withNul, alone] = await Promise.allSettled([tags, nul, plain]);
    expect((tagged as PromiseFulfilledResult<{ tags: string[] }[]>).value[0].tags).toEqual(["a", "b,c", 'd"e']);
    // PostgreSQL refuses a NUL in text, as it did before: the caller's own error.
    expect(withNul.status).toBe("rejected");
    expect(alone.status).toBe("fulfilled");
  });

  test("a text PostgreSQL will not PREPARE fails for its caller only", async () => {
    const [bad, good] = await Promise.allSettled([executeStatement(t.db, "select nope from nowhere where n = $1", [1]), insert(400, "fine")]);
    expect(String((bad as PromiseRejectedResult).reason)).toMatch(/nowhere/);
    expect(good.status).toBe("fulfilled");
  });

  test("two processes' groups that deadlock: PostgreSQL ends one, its statements run again alone, each applied once", async () => {
    await t.execute("create table lock_probe (id integer primary key, v integer not null)");
    await t.execute("insert into lock_probe values (1, 0), (2, 0)");
    const other = await openDatabase({ databaseUrl: t.databaseUrl! });
    try {
      // Each statement takes its row's lock, then waits (RETURNING runs after the update), so each
      // group holds one row while it asks for the other.
      const bump = "update lock_probe set v = v + 1 where id = $1 returning id, pg_sleep($2)::text as slept";
      const groups = [groupCommitOf((t.db as unknown as { $client: unknown }).$client)!, groupCommitOf((other.db as unknown as { $client: unknown }).$client)!];
      const before = groups.map((g) => g.groups);
      const first = [executeStatement(t.db, bump, [1, 0.3]), executeStatement(t.db, bump, [2, 0])];
      const second = [executeStatement(other.db, bump, [2, 0.3]), executeStatement(other.db, bump, [1, 0])];
      const settled = await Promise.allSettled([...first, ...second]);
      expect(settled.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "fulfilled"]);
      // One group committed; the one PostgreSQL ended ran its statements alone.
      expect(groups.reduce((n, g, i) => n + g.groups - before[i], 0)).toBe(1);
      expect((await t.execute("select id, v from lock_probe order by id")).rows).toEqual([
        { id: 1, v: 2 },
        { id: 2, v: 2 },
      ]);
    } finally {
      await other.close();
    }
  });

  test("a group's connection killed mid-flight: its callers get the error, nothing is run again, and the next groups prepare again on new connections", async () => {
    const before = await count();
    // A statement that takes a while holds the group open while its backend is terminated.
    const slow = Array.from({ length: 10 }, (_, i) =>
      executeStatement(t.db, "insert into group_probe (n, label) select $1, $2 from pg_sleep(0.3)", [500 + i, `slow ${i}`]),
    );
    const settling = Promise.allSettled(slow);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const killed = await t.execute("select pg_terminate_backend(pid) as killed from pg_stat_activity where datname = current_database() and query like 'execute hp_group_%' and pid <> pg_backend_pid()");
    expect(killed.rows).toEqual([{ killed: true }]);
    const settled = await settling;
    // Whether a group whose connection ended had committed is unknown to the client: it is not run
    // again (that could store it twice); each of its callers gets the error, and here, ended
    // before its commit, none of its rows is stored.
    expect(settled.map((r) => r.status)).toEqual(Array(10).fill("rejected"));
    for (const r of settled) expect(String((r as PromiseRejectedResult).reason)).toMatch(/terminating connection/);
    const landed = (await t.execute("select n from group_probe where n between 500 and 509 order by n")).rows;
    expect(landed).toEqual([]);
    expect(await count()).toBe(before);
    // The pool heals: new groups prepare their statements again on the connections they get.
    const after = await Promise.all(Array.from({ length: 10 }, (_, i) => insert(600 + i, `after ${i}`)));
    expect(after.map((r) => r[0].n)).toEqual(Array.from({ length: 10 }, (_, i) => 600 + i));
  });
});
