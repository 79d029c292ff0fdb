/**
 * For the tests of a migration on a database that has rows: a migrations folder that stops at an
 * older migration (the database is created there, filled, then migrated on), and a chain sealed by
 * hand, as an auditor recomputes it, for tables the sealer of that time would have sealed.
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import canonicalize from "canonicalize";
import type { DbHandle } from "@/db/client";
import { GENESIS_HASH } from "@/lib/core/audit/chain-hash";
import { setEnv } from "@/test/config-env";
import { createTestDatabase, type TestDatabase } from "@/test/database";

/** A copy of drizzle/ with the migrations up to and including number `last` (the caller removes it). */
export function migrationsThrough(last: number): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `hp-migrations-${last}-`));
  mkdirSync(path.join(dir, "meta"));
  const journal = JSON.parse(readFileSync("drizzle/meta/_journal.json", "utf8"));
  journal.entries = journal.entries.filter((e: { idx: number }) => e.idx <= last);
  writeFileSync(path.join(dir, "meta", "_journal.json"), JSON.stringify(journal));
  for (const file of readdirSync("drizzle").filter((f) => f.endsWith(".sql") && Number(f.slice(0, 4)) <= last)) {
    copyFileSync(path.join("drizzle", file), path.join(dir, file));
  }
  return dir;
}

/**
 * A fresh test database migrated through number `last` only (migrating it on later uses the real
 * folder again). `drop` removes the database and the folder.
 */
export async function databaseThrough(last: number): Promise<{ t: TestDatabase; drop(): Promise<void> }> {
  const folder = migrationsThrough(last);
  const restoreEnv = setEnv({ HOOKPLANE_MIGRATIONS_DIR: folder });
  let t: TestDatabase;
  try {
    t = await createTestDatabase();
  } finally {
    restoreEnv();
  }
  return {
    t,
    async drop() {
      await t.drop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Seals every unsealed row of `table` over all its columns (the append-only trigger's one allowed UPDATE). */
export async function sealByHand(handle: Pick<DbHandle, "execute">, table: "audit_log" | "hook_invocations") {
  const { rows } = await handle.execute(
    `select r.id::int as id, (to_jsonb(r) - 'chain_seq' - 'hash') || jsonb_build_object('created_at', to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')) as content
       from ${table} r where r.chain_seq is null order by r.id`,
    [],
  );
  let previous = GENESIS_HASH;
  let seq = 0;
  for (const row of rows as { id: number; content: unknown }[]) {
    const content = typeof row.content === "string" ? JSON.parse(row.content) : row.content;
    previous = createHash("sha256").update(previous + canonicalize(content)).digest("hex");
    await handle.execute(`update ${table} set chain_seq = $1, hash = $2 where id = $3`, [++seq, previous, row.id]);
  }
  return { position: seq, hash: previous };
}
