/**
 * Applies drizzle/ at start. On PostgreSQL an advisory lock, held on one dedicated connection,
 * keeps concurrent web and worker processes from migrating at the same time.
 */
import path from "node:path";
import type { DbHandle } from "./client";

const MIGRATION_LOCK = 7_240_114;

export function migrationsFolder(): string {
  return path.resolve(/*turbopackIgnore: true*/ process.env.HOOKPLANE_MIGRATIONS_DIR ?? path.join(process.cwd(), "drizzle"));
}

export async function migrateDatabase(handle: DbHandle): Promise<void> {
  const migrationsConfig = { migrationsFolder: migrationsFolder() };
  if (handle.kind === "pglite") {
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    await migrate(handle.db as never, migrationsConfig);
    return;
  }
  const postgres = (await import("postgres")).default;
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const { migrate } = await import("drizzle-orm/postgres-js/migrator");
  const sql = postgres(handle.url!, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrate(drizzle(sql), migrationsConfig);
    await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
