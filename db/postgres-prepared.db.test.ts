/**
 * Named statements on PostgreSQL (db/postgres-prepared.ts): drizzle's queries and
 * executeStatement go out prepared on the connection that runs them (a transaction's own inside
 * one), at most PREPARED_PER_CONNECTION texts a connection, and not at all with `?prepare=false`.
 * The URL setting is checked on both databases; the rest needs PostgreSQL.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { executeStatement, openDatabase, type Db } from "./client";
import { PREPARED_PER_CONNECTION, prepareSetting } from "./postgres-prepared";
import { loadConfig } from "@/lib/platform/config/config";
import { createAgent } from "./queries/agents";
import { agents } from "./schema";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

test("?prepare=false and HOOKPLANE_DB_PREPARE=false turn preparing off; the parameter is not passed on", () => {
  const setting = (url: string, env: Record<string, string>) => prepareSetting(url, loadConfig(env).HOOKPLANE_DB_PREPARE);
  expect(setting("postgres://u@h:5432/d", {})).toEqual({ url: "postgres://u@h:5432/d", prepare: true });
  expect(setting("postgres://u@h:5432/d?prepare=false&sslmode=disable", {})).toEqual({ url: "postgres://u@h:5432/d?sslmode=disable", prepare: false });
  expect(setting("postgres://u@h:5432/d?prepare=true", {})).toEqual({ url: "postgres://u@h:5432/d", prepare: true });
  expect(setting("postgres://u@h:5432/d", { HOOKPLANE_DB_PREPARE: "false" })).toEqual({ url: "postgres://u@h:5432/d", prepare: false });
  expect(setting("postgres://u@h:5432/d", { HOOKPLANE_DB_PREPARE: "" }).prepare).toBe(true);
});

describe.runIf(process.env.DATABASE_URL)("on PostgreSQL", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    await t?.drop();
  });

  /** The statements prepared on the connection running `db` (a transaction's). */
  async function prepared(db: Db): Promise<string[]> {
    const result = (await db.execute(sql`select statement from pg_prepared_statements`)) as unknown as { rows: { statement: string }[] };
    return result.rows.map((r) => r.statement);
  }

  test("a drizzle query and executeStatement inside a transaction run prepared on the transaction's connection", async () => {
    const name = `prepared-${Date.now()}`;
    await expect(
      t.db.transaction(async (tx) => {
        await createAgent(tx, { projectId: DEFAULT_PROJECT_ID, spec: { name, model: "scripted", tools: [], maxTurns: 1, timeoutMs: 1_000 } });
        await tx.select({ id: agents.id }).from(agents).where(eq(agents.name, name));
        // Sees the transaction's own uncommitted row: it ran on that connection.
        const rows = await executeStatement<{ n: number }>(tx, "select count(*)::integer as n from agents where name = $1", [name]);
        expect(rows).toEqual([{ n: 1 }]);
        const statements = await prepared(tx);
        expect(statements).toContain("select count(*)::integer as n from agents where name = $1");
        expect(statements.some((s) => s.startsWith('select "id" from "agents" where "agents"."name" = $1'))).toBe(true);
        expect(statements.some((s) => s.startsWith('insert into "agents"'))).toBe(true);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    // Rolled back with the transaction: executeStatement wrote nothing outside it either.
    expect(await executeStatement(t.db, "select 1 from agents where name = $1", [name])).toEqual([]);
  });

  test("a connection names at most PREPARED_PER_CONNECTION texts; the rest run unnamed, all answer", async () => {
    await t.db.transaction(async (tx) => {
      for (let i = 0; i < PREPARED_PER_CONNECTION + 20; i++) {
        expect(await executeStatement<{ n: number }>(tx, `select $1::integer + ${i} as n`, [1])).toEqual([{ n: 1 + i }]);
      }
      expect((await prepared(tx)).length).toBe(PREPARED_PER_CONNECTION);
    });
  });

  test("with ?prepare=false nothing is prepared", async () => {
    const url = new URL(t.databaseUrl!);
    url.searchParams.set("prepare", "false");
    const sent: string[] = [];
    const handle = await openDatabase({ databaseUrl: url.toString(), onStatement: (text) => sent.push(text) });
    try {
      await handle.db.transaction(async (tx) => {
        await tx.select({ id: agents.id }).from(agents).where(eq(agents.name, "nobody"));
        expect(await executeStatement(tx, "select 1 from agents where name = $1", ["nobody"])).toEqual([]);
        expect(await prepared(tx)).toEqual([]);
      });
      expect(sent).toContain("select 1 from agents where name = $1");
    } finally {
      await handle.close();
    }
  });
});
