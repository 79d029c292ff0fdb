/**
 * Pacing for loops of heavy statements (retention's batches), so they never crowd out the appends
 * running beside them.
 */
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import type { Db } from "./client";

/**
 * Lets the rest of the process run (timers, requests) before the next statement. PGlite runs inside
 * this process: a loop of statements that never yields holds every other query and request back
 * until it ends. On PostgreSQL it costs a timer tick.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Rest per unit of work: 3 leaves the database three quarters of the time for everyone else. */
const REST_RATIO = 3;

/**
 * Rests three times as long as the statement begun at `startedAt` took (and yields meanwhile), so a
 * loop of them takes at most about a quarter of the database's time. Measured by bench:retention
 * on a 2-core machine, deleting 1,000,000 events row by row: at full speed append p99 went to 5.6x
 * its idle figure, resting as long as each statement took 2–17x (WAL flushes queue behind the
 * deletes' WAL), resting 3x with 500-row statements 0.6–1.8x, at ~46,000 rows/s.
 */
export function restAfter(startedAt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, (performance.now() - startedAt) * REST_RATIO)));
}

/**
 * Runs `work` in a transaction whose commit does not wait for its WAL to reach the disk
 * (`synchronous_commit = off`, for this transaction only). For retention's deletes: appends commit
 * one at a time (each NOTIFYs, and PostgreSQL serializes NOTIFYing commits, fsync included), so a
 * delete's own commit flush queued among theirs stretches every one of them; a delete lost to a
 * crash is simply done again by the next pass (its anchor with it: one transaction either way).
 */
export function withoutFlushWait<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    await tx.execute(sql`set local synchronous_commit = off`);
    return work(tx);
  });
}
