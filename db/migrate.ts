/**
 * Applies drizzle/ at start. On PostgreSQL an advisory lock, held on one dedicated connection,
 * keeps concurrent web and worker processes from migrating at the same time. That connection is to
 * PostgreSQL itself (DATABASE_DIRECT_URL) when there is a pooler in transaction mode: through it,
 * the lock would stay with whichever server connection ran it, and the unlock go to another.
 */
import { getConfig } from "@/lib/platform/config/config";
import type { DbHandle } from "./db-handle";

const MIGRATION_LOCK = 7_240_114;

export function migrationsFolder(): string {
  return getConfig().HOOKPLANE_MIGRATIONS_DIR;
}

export async function migrateDatabase(handle: DbHandle): Promise<void> {
  const migrationsConfig = { migrationsFolder: migrationsFolder() };
  if (handle.kind === "pglite") {
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    await migrate(handle.db as never, migrationsConfig);
    return;
  }
  const pg = (await import("pg")).default;
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  const { withPoolerHint } = await import("./postgres-pool");
  // No bound on a migration's statements (an index on a large table takes its time, whatever the
  // role's statement_timeout), said when connecting as the pool's connections say theirs: a pooler
  // in transaction mode that Hookplane was not told of refuses it here, before the lock is taken
  // through it (and left with whichever server connection ran it).
  const client = new pg.Client({ connectionString: handle.directUrl ?? handle.url!, connectionTimeoutMillis: 10_000, options: "-c statement_timeout=0" });
  await client.connect().catch((error: unknown) => {
    throw withPoolerHint(error, handle.directUrl ? "direct" : "pooled");
  });
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await migrate(drizzle(client), migrationsConfig);
    await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]);
  } finally {
    await client.end();
  }
}
