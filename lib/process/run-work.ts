/**
 * A process's run work assembled: pg-boss, the run queue (runs) and the housekeeping beside it.
 * What server.ts and the worker start (through background.ts), and what tests and benchmarks start
 * alone. Stopping keeps the order the pieces need: the tick ends, the queue drains, the jobs end,
 * then pg-boss.
 */
import type { DbHandle } from "@/db/client";
import { startRunQueue, type RunQueue, type RunQueueOptions } from "@/lib/features/runs/queue/run-queue";
import { getConfig } from "@/lib/platform/config/config";
import { startHousekeeping, type HousekeepingOptions } from "./housekeeping";
import { startJobBoss } from "./job-boss";

export type RunWorkOptions = RunQueueOptions & Omit<HousekeepingOptions, "works" | "sweepMs">;

export async function startRunWork(handle: DbHandle, options: RunWorkOptions): Promise<RunQueue> {
  const sweepMs = options.sweepMs ?? getConfig().HOOKPLANE_SWEEP_MS;
  const boss = await startJobBoss(handle);
  const queue = await startRunQueue(handle, boss, { ...options, sweepMs });
  const housekeeping = await startHousekeeping(handle, boss, queue, { ...options, works: options.concurrency > 0, sweepMs });
  return {
    enqueue: queue.enqueue,
    cancel: queue.cancel,
    get active() {
      return queue.active;
    },
    get sweeps() {
      return housekeeping.sweeps;
    },
    async stop() {
      housekeeping.stopTicking();
      await queue.stop();
      await housekeeping.stop();
      await boss.stop({ graceful: true, wait: true, timeout: 5_000 }).catch(() => {});
    },
  };
}
