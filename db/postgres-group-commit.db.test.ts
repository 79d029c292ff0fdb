/**
 * Group commit on PostgreSQL's pool (db/postgres-group-commit.ts), from the wrong side: a group
 * whose connection is killed mid-flight, a statement that fails inside a group, values that cannot
 * be written as literals, a text PostgreSQL will not PREPARE, and the statements of one turn sent as
 * one query. Each caller gets its own answer or its own error, and nothing lands twice.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { executeStatement } from "./client";
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

  test("a group's connection killed mid-flight: its callers get an answer or an error, none lands twice, and the next groups prepare again on new connections", async () => {
    const before = await count();
    // A statement that takes a while holds the group open while its backend is terminated.
    const slow = Array.from({ length: 10 }, (_, i) =>
      executeStatement(t.db, "insert into group_probe (n, label) select $1, $2 from pg_sleep(0.3)", [500 + i, `slow ${i}`]),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const killed = await t.execute("select pg_terminate_backend(pid) as killed from pg_stat_activity where datname = current_database() and query like 'execute hp_group_%' and pid <> pg_backend_pid()");
    expect(killed.rows).toEqual([{ killed: true }]);
    const settled = await Promise.allSettled(slow);
    const landed = (await t.execute("select n from group_probe where n between 500 and 509 order by n")).rows.map((r) => (r as { n: number }).n);
    // Each fulfilled caller's row is there once; a rejected caller's row is not (the group rolled back or it ran alone and failed).
    const fulfilled = settled.flatMap((r, i) => (r.status === "fulfilled" ? [500 + i] : []));
    expect(landed).toEqual(fulfilled);
    expect(await count()).toBe(before + landed.length);
    // The pool heals: new groups prepare their statements again on the connections they get.
    const after = await Promise.all(Array.from({ length: 10 }, (_, i) => insert(600 + i, `after ${i}`)));
    expect(after.map((r) => r[0].n)).toEqual(Array.from({ length: 10 }, (_, i) => 600 + i));
  });
});
