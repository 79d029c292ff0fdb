/**
 * The one place that chooses the database: PGlite in HOOKPLANE_DATA_DIR when DATABASE_URL is
 * unset, postgres.js when it is. One client per process, kept on globalThis so Next's bundled
 * route handlers and the custom server share it (PGlite allows a single process only).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import * as schema from "./schema";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type DbKind = "pglite" | "postgres";

export interface DbHandle {
  db: Db;
  kind: DbKind;
  /** The PostgreSQL URL, when kind is "postgres". */
  url?: string;
  /** Run raw SQL with positional parameters; used by pg-boss's adapter and NOTIFY. */
  execute(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /** LISTEN on a channel; resolves to an unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl?: string;
  /** PGlite folder; "memory://" for an in-memory database (tests). */
  dataDir?: string;
}

async function openPglite(dataDir: string): Promise<DbHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir.startsWith("memory://") ? undefined : dataDir);
  const db = drizzle(client, { schema }) as unknown as Db;
  return {
    db,
    kind: "pglite",
    async execute(text, params) {
      if (params && params.length > 0) {
        const result = await client.query<Record<string, unknown>>(text, params as unknown[]);
        return { rows: result.rows };
      }
      // pg-boss sends multi-statement scripts without parameters; only exec() accepts those.
      const results = await client.exec(text);
      const withRows = results.filter((r) => r.rows.length > 0);
      return { rows: (withRows.at(-1)?.rows ?? []) as Record<string, unknown>[] };
    },
    async listen(channel, onPayload) {
      const unsubscribe = await client.listen(channel, onPayload);
      return unsubscribe;
    },
    async notify(channel, payload) {
      await client.query("select pg_notify($1, $2)", [channel, payload]);
    },
    async close() {
      if (!client.closed) await client.close();
    },
  };
}

async function openPostgres(url: string): Promise<DbHandle> {
  const postgres = (await import("postgres")).default;
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const max = Number(process.env.HOOKPLANE_DB_POOL ?? 10);
  const sql = postgres(url, { max, onnotice: () => {}, connect_timeout: 10 });
  const db = drizzle(sql, { schema }) as unknown as Db;
  return {
    db,
    kind: "postgres",
    url,
    async execute(text, params) {
      const rows = await sql.unsafe(text, (params ?? []) as never[]);
      return { rows: rows as unknown as Record<string, unknown>[] };
    },
    async listen(channel, onPayload) {
      const { unlisten } = await sql.listen(channel, (payload) => onPayload(payload));
      return unlisten;
    },
    async notify(channel, payload) {
      await sql.notify(channel, payload);
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}

export function resolveDataDir(env: Record<string, string | undefined> = process.env): string {
  return path.resolve(/*turbopackIgnore: true*/ env.HOOKPLANE_DATA_DIR ?? "./.hookplane");
}

export async function openDatabase(options: OpenOptions = {}): Promise<DbHandle> {
  const url = options.databaseUrl ?? process.env.DATABASE_URL;
  return url ? openPostgres(url) : openPglite(options.dataDir ?? path.join(resolveDataDir(), "pgdata"));
}

const GLOBAL_KEY = Symbol.for("hookplane.database");
type GlobalWithDb = typeof globalThis & { [GLOBAL_KEY]?: Promise<DbHandle> };

/** The process-wide database handle, opened and migrated once. */
export function getDatabase(): Promise<DbHandle> {
  const g = globalThis as GlobalWithDb;
  if (!g[GLOBAL_KEY]) {
    g[GLOBAL_KEY] = (async () => {
      const handle = await openDatabase();
      const { migrateDatabase } = await import("./migrate");
      await migrateDatabase(handle);
      return handle;
    })();
    g[GLOBAL_KEY].catch(() => {
      delete g[GLOBAL_KEY];
    });
  }
  return g[GLOBAL_KEY];
}

export async function closeDatabase(): Promise<void> {
  const g = globalThis as GlobalWithDb;
  const pending = g[GLOBAL_KEY];
  delete g[GLOBAL_KEY];
  if (pending) await (await pending).close();
}

/** Makes `handle` the process-wide database (tests and the worker entry point open their own). */
export function installDatabase(handle: DbHandle): void {
  (globalThis as GlobalWithDb)[GLOBAL_KEY] = Promise.resolve(handle);
}
