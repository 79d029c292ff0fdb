/**
 * Retention on pg-boss: once an hour, however many processes run. Every process that starts the
 * run queue asks for this hour's pass (a job sent with a singleton key and `singletonSeconds`, so
 * pg-boss keeps one per hour whoever sends it: its unique index on the slot), and the processes that
 * work runs take it (the queue's `singleton` policy lets one be active at a time). Embedded (PGlite,
 * `npm start` without DATABASE_URL) the web process is that worker, through the same pg-boss.
 * A pass first makes the coming days' partitions (ensureRetentionPartitions), so they also get made
 * at every start.
 */
import type PgBoss from "pg-boss";
import type { Db } from "@/db/client";
import { logger } from "@/lib/platform/logger";
import { applyRetention, ensureRetentionPartitions } from "./retention-pass";

export const RETENTION_QUEUE = "hookplane-retention";
/** One pass an hour: each is a few index probes when nothing has expired. */
export const RETENTION_EVERY_SECONDS = 3_600;
/** How often a process asks for the hour's pass (a no-op but once an hour). */
const REQUEST_EVERY_MS = 60_000;
/** A pass cut short by a dying process blocks the next (singleton) until pg-boss expires it. */
const QUEUE_OPTIONS = { policy: "singleton", retryLimit: 0, expireInSeconds: 2 * 3_600 } as const;

export interface RetentionJob {
  stop(): Promise<void>;
}

export async function startRetentionJob(
  boss: PgBoss,
  db: Db,
  options: { work: boolean; pollingIntervalSeconds?: number },
): Promise<RetentionJob> {
  if (!(await boss.getQueue(RETENTION_QUEUE))) {
    // Another process may create it at the same moment.
    await boss.createQueue(RETENTION_QUEUE, { name: RETENTION_QUEUE, ...QUEUE_OPTIONS }).catch(() => {});
  }
  await ensureRetentionPartitions(db).catch((error) => logger.warn({ err: error }, "could not make the coming days' partitions; the next pass retries"));
  const request = () =>
    boss
      .send(RETENTION_QUEUE, {}, { singletonKey: "retention", singletonSeconds: RETENTION_EVERY_SECONDS })
      .catch((error) => logger.warn({ err: error }, "could not ask for a retention pass"));
  await request();
  const timer = setInterval(request, REQUEST_EVERY_MS);
  timer.unref();
  if (options.work) {
    await boss.work(RETENTION_QUEUE, { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 30 }, async () => {
      try {
        const partitions = await ensureRetentionPartitions(db);
        const report = await applyRetention(db);
        logger.info({ ...report, partitionsMade: partitions }, "retention pass done");
      } catch (error) {
        // The job fails (pg-boss keeps it); the next hour's pass starts over where this one stopped.
        logger.error({ err: error }, "retention pass failed");
        throw error;
      }
    });
  }
  return {
    async stop() {
      clearInterval(timer);
      if (options.work) await boss.offWork(RETENTION_QUEUE).catch(() => {});
    },
  };
}
