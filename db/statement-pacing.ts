/**
 * Pacing for loops of heavy statements (retention's batches), so they never crowd out the appends
 * running beside them.
 */
import { performance } from "node:perf_hooks";

/**
 * Lets the rest of the process run (timers, requests) before the next statement. PGlite runs inside
 * this process: a loop of statements that never yields holds every other query and request back
 * until it ends. On PostgreSQL it costs a timer tick.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Rests as long as the statement begun at `startedAt` took (and yields meanwhile): a loop of them
 * takes at most about half of the database's time, whose other half stays with the writers. Measured
 * by bench:retention: deleting 1,000,000 events row by row at full speed put append p99 at 5.6x
 * its idle figure on a 2-core machine.
 */
export function restAfter(startedAt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, performance.now() - startedAt)));
}
