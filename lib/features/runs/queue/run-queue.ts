/**
 * Durable runs on pg-boss. A job is a wake-up for a run id; the durable state is the run row and
 * its checkpoint, and a lease on that row (renewed by heartbeat) makes sure one worker executes a
 * run at a time. The sweep (wakeOrphans, called on the process's housekeeping tick, lib/process)
 * hands runs whose worker died, parked runs whose approval was settled or timed out, and cancelled
 * parked runs back to the queue, so nothing waits on a lost process. pg-boss is the process's
 * (lib/process/job-boss.ts): embedded, it runs on PGlite through its executeSql adapter; on
 * PostgreSQL any number of processes can work the same queue.
 *
 * The queue holds at most one waiting wake-up per run: the queue's `short` policy with the run id
 * as singleton key lets one job per key be `created` however many are `active`, so a run waiting
 * for a slot is never queued twice, while a wake-up sent during its execution (a decision, a
 * cancel) still gets in. Each worker fetches as many jobs as it has free slots, and completes a job
 * only once it has claimed the job's run (or found it needs no work here); a process that dies in
 * between leaves an active job behind and an unclaimed run, which the sweeper wakes again.
 */
import { randomUUID } from "node:crypto";
import type PgBoss from "pg-boss";
import type { DbHandle } from "@/db/client";
import { claimRun, listOrphanedRuns, releaseAllLeases, releaseRun, renewLeases } from "@/db/queries/run-leases";
import type { RunRow } from "@/db/queries/runs";
import { LoopInterrupted } from "@/lib/core/agent/loop";
import { getConfig } from "@/lib/platform/config/config";
import { logger } from "@/lib/platform/logger";
import { startApprovalWaiter } from "@/lib/features/approvals/approval-waiter";
import { executeRun } from "@/lib/features/runs/run-executor";
import { ensureWorkspacesDir } from "@/lib/platform/security/code-execution";
import { RUN_QUEUE } from "./run-queue-name";
import { createWakeSignal } from "./wake-signal";

export { RUN_QUEUE };
/**
 * How long a step in flight may go on after a shutdown began (issue 19: 10 s by default), then it
 * is cut short and recorded as interrupted on resume. HOOKPLANE_STEP_GRACE_MS changes it; keep it
 * under what the supervisor waits after SIGTERM before SIGKILL.
 */
const stepGraceMs = () => getConfig().HOOKPLANE_STEP_GRACE_MS;
const WAKE_CHANNEL = "hp_worker_wake";
const CANCEL_CHANNEL = "hp_run_cancel";
/** How often an idle worker looks at the queue without a NOTIFY (one lost on a reconnect, say). */
const POLL_MS = 500;
/**
 * A wake-up job only lives from fetch to claim (milliseconds); one still active after this was
 * fetched by a process that died, and pg-boss's maintenance ends it (the sweeper has long since
 * woken its run again).
 */
const QUEUE_OPTIONS = { policy: "short", retryLimit: 0, expireInSeconds: 15 * 60 } as const;

interface WakeUp {
  runId: string;
}

export interface RunQueueOptions {
  /** Runs this process executes at once; 0 = enqueue only. */
  concurrency: number;
  leaseMs?: number;
  /** The housekeeping tick's period: a queued run younger than three of them is still being enqueued. */
  sweepMs?: number;
  approvalHoldMs?: number;
  workspacesDir?: string;
}

export interface RunQueue {
  enqueue(runId: string): Promise<void>;
  /** Asks whichever process runs it to stop; a parked or queued run is ended by a worker. */
  cancel(runId: string): Promise<void>;
  /** Runs executing in this process. */
  readonly active: number;
  /** Sweeps this process has completed: how a caller knows the sweeper has looked since a change. */
  readonly sweeps: number;
  stop(): Promise<void>;
}

/** The queue as this process works it; the housekeeping tick (lib/process) wakes its orphans and counts the sweeps. */
export interface WorkedRunQueue extends Omit<RunQueue, "sweeps"> {
  /** Hands runs nobody works (a dead worker's, a parked run whose approval ended) back to the queue. */
  wakeOrphans(): Promise<void>;
}

export async function startRunQueue(handle: DbHandle, boss: PgBoss, options: RunQueueOptions): Promise<WorkedRunQueue> {
  const owner = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const config = getConfig();
  const leaseMs = options.leaseMs ?? config.HOOKPLANE_LEASE_MS;
  const sweepMs = options.sweepMs ?? config.HOOKPLANE_SWEEP_MS;
  const approvalHoldMs = options.approvalHoldMs ?? config.HOOKPLANE_APPROVAL_HOLD_MS;
  const workspacesDir = options.workspacesDir ?? ensureWorkspacesDir();
  const db = handle.db;

  const existing = await boss.getQueue(RUN_QUEUE);
  if (!existing) {
    await boss.createQueue(RUN_QUEUE, { name: RUN_QUEUE, ...QUEUE_OPTIONS }).catch(() => {});
  } else if (existing.policy !== QUEUE_OPTIONS.policy || existing.expireInSeconds !== QUEUE_OPTIONS.expireInSeconds) {
    // A database from before the one-wake-up-per-run policy: its queue was `standard`.
    await boss.updateQueue(RUN_QUEUE, { name: RUN_QUEUE, ...QUEUE_OPTIONS });
  }
  // The embedded database belongs to this process alone: any claim in it died with the last one.
  if (handle.kind === "pglite") await releaseAllLeases(db);
  const waiter = await startApprovalWaiter(handle);
  /** Runs this process has claimed and executes. */
  const running = new Map<string, AbortController>();
  /** Runs whose wake-up this process fetched and is claiming: they hold a slot already. */
  const claiming = new Set<string>();
  const wake = createWakeSignal();
  let stopping = false;

  const enqueue = async (runId: string) => {
    const jobId = await boss.send(RUN_QUEUE, { runId } satisfies WakeUp, { singletonKey: runId });
    // No job: the run already has a wake-up waiting, and whoever takes that one looks at it anew.
    if (jobId) await handle.notify(WAKE_CHANNEL, "1");
  };

  const complete = (jobId: string) =>
    boss.complete(RUN_QUEUE, jobId).catch((error) => logger.warn({ err: error, jobId }, "could not complete a run wake-up"));

  const execute = async (runId: string, controller: AbortController, claimed: RunRow) => {
    try {
      const result = await executeRun({ db, waiter, workspacesDir, approvalHoldMs }, runId, controller, claimed);
      logger.info({ runId, result }, "run step done");
    } catch (error) {
      logger.error({ err: error, runId }, "run execution failed");
    } finally {
      running.delete(runId);
      await releaseRun(db, { id: runId, owner }).catch(() => {});
      wake.notify();
    }
  };

  const take = async (job: { id: string; data: WakeUp }) => {
    const { runId } = job.data;
    if (running.has(runId) || claiming.has(runId)) {
      // This process has the run already. Whatever the wake-up was for is in the database (a
      // settled approval, a cancel flag): the execution sees it, or, if the run parks first, the
      // sweeper does.
      await complete(job.id);
      return;
    }
    claiming.add(runId);
    let claimed: Awaited<ReturnType<typeof claimRun>>;
    try {
      claimed = await claimRun(db, { id: runId, owner, ttlMs: leaseMs });
    } catch (error) {
      // The job stays active and the run unclaimed: the sweeper wakes it once the job is stale.
      logger.warn({ err: error, runId }, "could not claim a run");
      claiming.delete(runId);
      wake.notify();
      return;
    }
    claiming.delete(runId);
    if (!claimed) {
      // Finished, or held by another live worker: this wake-up has nothing to do here.
      await complete(job.id);
      wake.notify();
      return;
    }
    const controller = new AbortController();
    running.set(runId, controller);
    // The lease carries the run from here on, so the wake-up is done.
    await complete(job.id);
    if (stopping) {
      // Claimed just as the process began to stop: hand the run straight back to the queue.
      await releaseRun(db, { id: runId, owner }).catch(() => {});
      await enqueue(runId).catch(() => {});
      running.delete(runId);
      return;
    }
    await execute(runId, controller, claimed);
  };

  /** Fetches as many wake-ups as there are free slots, whenever a slot frees or a NOTIFY comes. */
  const pump = async () => {
    while (!stopping) {
      const free = options.concurrency - running.size - claiming.size;
      if (free <= 0) {
        await wake.wait(POLL_MS);
        continue;
      }
      const jobs = await boss.fetch<WakeUp>(RUN_QUEUE, { batchSize: free }).catch((error) => {
        logger.warn({ err: error }, "could not fetch run wake-ups");
        return [];
      });
      if (stopping) {
        // Fetched as the process stops: a fresh wake-up for each, for another worker to take.
        for (const job of jobs) {
          await enqueue(job.data.runId).catch(() => {});
          await complete(job.id);
        }
        break;
      }
      for (const job of jobs) void take(job).catch((error) => logger.error({ err: error, jobId: job.id }, "run wake-up failed"));
      // A short batch means the queue is drained: sleep until a NOTIFY, a free slot or the poll.
      if (jobs.length < free) await wake.wait(POLL_MS);
    }
  };
  const pumping = options.concurrency > 0 ? pump() : Promise.resolve();

  const unlistenWake = await handle.listen(WAKE_CHANNEL, () => wake.notify());
  const unlistenCancel = await handle.listen(CANCEL_CHANNEL, (runId) => running.get(runId)?.abort());

  const heartbeat = setInterval(async () => {
    try {
      const ids = [...running.keys()];
      const kept = new Set(await renewLeases(db, { owner, ids, ttlMs: leaseMs }));
      for (const id of ids) if (!kept.has(id)) running.get(id)?.abort(new LoopInterrupted("lost the run's lease"));
    } catch (error) {
      logger.warn({ err: error }, "lease heartbeat failed");
    }
  }, Math.max(200, Math.floor(leaseMs / 3)));

  const wakeOrphans = async () => {
    if (stopping) return;
    const orphaned = await listOrphanedRuns(db, {
      queue: RUN_QUEUE,
      queuedOlderThanMs: Math.max(5_000, sweepMs * 3),
      fetchedOlderThanMs: leaseMs,
    });
    for (const runId of orphaned) {
      if (!running.has(runId) && !claiming.has(runId)) await enqueue(runId);
    }
  };

  return {
    enqueue,
    async cancel(runId) {
      await handle.notify(CANCEL_CHANNEL, runId);
      await enqueue(runId);
    },
    get active() {
      return running.size;
    },
    wakeOrphans,
    async stop() {
      stopping = true;
      wake.notify();
      await pumping;
      clearInterval(heartbeat);
      // Interrupted runs keep their checkpoint and are resumed by the next worker.
      // Steps in flight may finish within the grace period (and are recorded once); what still
      // runs when it ends is cut short and reported as interrupted on resume.
      const hardStop = new AbortController();
      const grace = setTimeout(() => hardStop.abort(), stepGraceMs());
      for (const controller of running.values()) controller.abort(new LoopInterrupted("worker shutting down", { hardStop: hardStop.signal }));
      const deadline = Date.now() + 10_000;
      while (running.size + claiming.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      clearTimeout(grace);
      await unlistenWake().catch(() => {});
      await unlistenCancel().catch(() => {});
      await waiter.stop().catch(() => {});
    },
  };
}
