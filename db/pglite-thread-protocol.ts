/**
 * The messages between a process and the thread that runs its embedded database
 * (db/pglite-thread.ts, db/pglite-thread-worker.ts). Every request carries an id its reply names;
 * a notification names the listener it is for.
 */

/** Marks a PgliteThread (db/client.ts: its group commit sends the next group before answering the last). */
export const ON_OWN_THREAD = Symbol.for("hookplane.pgliteOnOwnThread");

/** What the thread needs to open the database: options with a file system object cannot cross threads. */
export interface ThreadStart {
  dataDir: string;
  fsync: boolean;
  /** One Int32 the thread adds each fsync that reached the disk to (pgliteSyncCount). */
  syncs: SharedArrayBuffer;
}

export type ThreadRequest =
  | {
      id: number;
      op: "query";
      text: string;
      params?: unknown[];
      rowMode?: "array" | "object";
      /** Type OIDs whose values come back as PostgreSQL's text (drizzle's identity parsers). */
      raw?: number[];
      /** The transaction it runs in; none: on its own, after any transaction in progress. */
      tx?: number;
    }
  | { id: number; op: "exec"; text: string; tx?: number }
  | { id: number; op: "begin" }
  | { id: number; op: "end"; tx: number; commit: boolean }
  | { id: number; op: "listen"; channel: string }
  | { id: number; op: "unlisten"; listener: number }
  | { id: number; op: "close" };

/** An error as it crosses: its message and name, and PostgreSQL's fields (code, detail, constraint...). */
export type ThreadError = { message: string; name: string; fields: Record<string, unknown> };

export type ThreadReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: ThreadError }
  | { notify: number; payload: string };

export interface QueryResult {
  rows: unknown[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
}

export function toThreadError(error: unknown): ThreadError {
  if (!(error instanceof Error)) return { message: String(error), name: "Error", fields: {} };
  const fields: Record<string, unknown> = {};
  // PostgreSQL's fields are strings and numbers; PGlite also hangs the query and its options
  // (parsers are functions, which cannot cross) on the error: those stay behind.
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") fields[key] = value;
  }
  return { message: error.message, name: error.name, fields };
}

export function fromThreadError(error: ThreadError): Error {
  const rebuilt = Object.assign(new Error(error.message), error.fields);
  rebuilt.name = error.name;
  return rebuilt;
}
