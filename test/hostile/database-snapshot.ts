/**
 * A fingerprint of every table: row count and a hash of the rows, so a test can say "this request
 * wrote nothing" exactly. Columns that change on every authenticated request by design
 * (`api_tokens.last_used_at`) are left out, and so is `sign_in_failures`, the failed-sign-in
 * counter whose whole job is to be written by failed requests.
 */
import { getTableName, is } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import type { DbHandle } from "@/db/client";
import * as schema from "@/db/schema";

const VOLATILE_COLUMNS = ["last_used_at"];
const BOOKKEEPING_TABLES = new Set(["sign_in_failures"]);

export const SNAPSHOT_TABLES = (Object.values(schema) as unknown[])
  .filter((value): value is PgTable => is(value, PgTable))
  .map((table) => getTableName(table))
  .filter((name) => !BOOKKEEPING_TABLES.has(name))
  .sort();

const query = SNAPSHOT_TABLES.map((name) => {
  const row = `(to_jsonb(t) - ${VOLATILE_COLUMNS.map((c) => `'${c}'`).join(" - ")})::text`;
  return `select '${name}' as "table", count(*)::int as rows, md5(coalesce(string_agg(${row}, ',' order by ${row}), '')) as hash from "${name}" t`;
}).join("\nunion all\n");

export type DatabaseSnapshot = Record<string, { rows: number; hash: string }>;

export async function snapshotDatabase(handle: Pick<DbHandle, "execute">): Promise<DatabaseSnapshot> {
  const { rows } = await handle.execute(query, []);
  return Object.fromEntries(rows.map((r) => [String(r.table), { rows: Number(r.rows), hash: String(r.hash) }]));
}

/** The tables whose rows differ, with their row counts before → after. */
export function snapshotChanges(before: DatabaseSnapshot, after: DatabaseSnapshot): string[] {
  return SNAPSHOT_TABLES.filter((t) => before[t]?.hash !== after[t]?.hash).map((t) => `${t} (${before[t]?.rows} → ${after[t]?.rows} rows)`);
}
