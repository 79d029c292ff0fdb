/**
 * NOTIFY sent after the write it announces committed, in a statement of its own (PostgreSQL's pool:
 * run-events.ts says why), coalesced: the notices of one turn of the event loop go out together,
 * one per (channel, key), the last payload winning (a run's newest seq: a stream hub reads from
 * where its subscribers are, so the highest seq is all it needs). A notice that cannot be sent is
 * tried once more a second later; one lost after that only delays the live view of that run until
 * its next event (its rows are stored: a page that loads or reconnects reads them).
 */
import type { Db } from "../client";
import { executeStatement } from "../client";

type Pending = Map<string, { channel: string; payload: string }>;
const pendingByDb = new WeakMap<Db, Pending>();

/** The notices as one JSON text (not arrays): a value written as a literal, so on PostgreSQL it joins a commit group (postgres-group-commit.ts). */
const NOTIFY_MANY = "select count(pg_notify(n->>'channel', n->>'payload')) from jsonb_array_elements($1::jsonb) as n";

export function notifyAfterCommit(db: Db, channel: string, key: string, payload: string): void {
  let pending = pendingByDb.get(db);
  if (!pending) {
    pendingByDb.set(db, (pending = new Map()));
    setImmediate(() => {
      pendingByDb.delete(db);
      void send(db, [...pending!.values()], 1);
    });
  }
  pending.set(`${channel}\u0000${key}`, { channel, payload });
}

async function send(db: Db, notices: { channel: string; payload: string }[], retries: number): Promise<void> {
  try {
    await executeStatement(db, NOTIFY_MANY, [JSON.stringify(notices)]);
  } catch (error) {
    if (retries > 0) {
      setTimeout(() => void send(db, notices, retries - 1), 1_000).unref();
      return;
    }
    const { logger } = await import("@/lib/platform/logger");
    logger.warn({ err: error, notices: notices.length }, "live-view notices could not be sent; the runs concerned update on their next event");
  }
}
