/**
 * The databases a test file or an e2e server made on PostgreSQL and never dropped (its process
 * was killed: Playwright ends the e2e server with a signal, a CI run stopped by hand), dropped by
 * the next run so the server does not fill up with them. Their names carry their creation time
 * (`<prefix><Date.now() in base 36>...`); only those older than any run lasts are dropped, never
 * the database of a run going on beside this one.
 */
import type { Sql } from "postgres";

const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

export async function dropStaleDatabases(admin: Sql, prefix: "hp_test_" | "hp_e2e_", now = Date.now()): Promise<string[]> {
  const rows = await admin<{ datname: string }[]>`select datname from pg_database where starts_with(datname, ${prefix})`;
  const stale = rows
    .map((r) => r.datname)
    .filter((name) => {
      const created = parseInt(name.slice(prefix.length).split("_")[0], 36);
      return Number.isFinite(created) && now - created > STALE_AFTER_MS;
    });
  for (const name of stale) await admin.unsafe(`drop database if exists "${name}" with (force)`);
  return stale;
}
