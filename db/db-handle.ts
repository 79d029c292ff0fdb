/**
 * What an open database is, apart from how it is opened (client.ts): migrate.ts and the tools that
 * take a handle read this type without importing the module that opens one.
 */
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type DbKind = "pglite" | "postgres";

export interface DbHandle {
  db: Db;
  kind: DbKind;
  /** The PostgreSQL URL, when kind is "postgres". */
  url?: string;
  /**
   * PostgreSQL itself, when `url` goes through a pooler in transaction mode (DATABASE_DIRECT_URL):
   * what needs a session of its own connects here (migrations' lock, pg-boss; LISTEN already does).
   */
  directUrl?: string;
  /** Run raw SQL with positional parameters; used by pg-boss's adapter and NOTIFY. */
  execute(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /** LISTEN on a channel; resolves to an unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  /**
   * False while this process knows the database is down (PostgreSQL: its probe failed), so a
   * request answers 503 at once instead of waiting. PGlite lives in the process: true until it
   * is closed (or its thread is lost).
   */
  available(): boolean;
  /**
   * The connections this handle holds now (metrics): PostgreSQL's pool (total, idle, queries
   * waiting for a connection, its maximum); PGlite is one connection inside the process.
   */
  poolStats(): { total: number; idle?: number; waiting?: number; max: number };
  /**
   * PGlite on a thread of its own: calls `listener` if that thread stops without being closed. It
   * does not come back (available() is false from then on), so the process should end.
   */
  onLost?(listener: (error: Error) => void): void;
  /** PGlite: one maintenance pass now (vacuum what is due, checkpoint if due); the tables vacuumed. */
  maintain?(): Promise<string[]>;
  close(): Promise<void>;
}
