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
  // A pooler in transaction mode that Hookplane was not told of refuses what the pool's connections
  // send when they connect: asked first, it stops the start here, with what to set, before the
  // migrations' lock is taken through it (and left with whichever server connection ran it).
  await handle.execute("select 1");
  // To PostgreSQL itself past a pooler, with no bound on a migration's statements (an index on a
  // large table takes its time, whatever the role's statement_timeout), said when connecting: a
  // DATABASE_DIRECT_URL that goes through the pooler too is refused here. Without a pooler, nothing
  // is sent (a proxy that pins sessions, as RDS Proxy does, serves the lock as it always did).
  const client = new pg.Client({
    connectionString: handle.directUrl ?? handle.url!,
    connectionTimeoutMillis: 10_000,
    ...(handle.directUrl && { options: "-c statement_timeout=0" }),
  });
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
