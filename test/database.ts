/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new database
 * on the PostgreSQL server of DATABASE_URL (dropped afterwards), so reruns start clean.
 */
import { randomBytes } from "node:crypto";
import { openDatabase, type DbHandle } from "../db/client";
import { migrateDatabase } from "../db/migrate";
import { migratedPgliteTemplate } from "./pglite-template";
import { dropStaleDatabases } from "./stale-databases";

export interface TestDatabase extends DbHandle {
  /** The URL of the fresh database, for child processes (PostgreSQL only). */
  databaseUrl?: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(options: { onStatement?: (text: string) => void } = {}): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    // Migrated already: the template is this checkout's migrations run once (pglite-template.ts).
    const handle = await openDatabase({ dataDir: "memory://", onStatement: options.onStatement, pgliteDataDir: await migratedPgliteTemplate() });
    return { ...handle, drop: () => handle.close() };
  }
  const postgres = (await import("postgres")).default;
  const name = `hp_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await dropStaleDatabases(admin, "hp_test_");
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), onStatement: options.onStatement });
  await migrateDatabase(handle);
  return {
    ...handle,
    databaseUrl: url.toString(),
    async drop() {
      await handle.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}
