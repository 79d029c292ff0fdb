/**
 * Durable runs on pg-boss. A job is a wake-up for a run id; the durable state is the run row and
 * its checkpoint, and a lease on that row (renewed by heartbeat) makes sure one worker executes a
 * run at a time. A sweeper hands runs whose worker died, parked runs whose approval was settled or
 * timed out, and cancelled parked runs back to the queue, so nothing waits on a lost process.
 * Embedded, pg-boss runs on PGlite through its executeSql adapter; on PostgreSQL any number of
 * processes can work the same queue.
 */
import { randomUUID } from "node:crypto";
import PgBoss from "pg-boss";
import type { DbHandle } from "@/db/client";
import { listExpiredApprovals, settleApproval } from "@/db/queries/approvals";
import { claimRun, listOrphanedRuns, releaseAllLeases, releaseRun, renewLeases } from "@/db/queries/run-leases";
import { LoopInterrupted } from "@/lib/agent/loop";
import { expireIdleSessions } from "@/lib/bridge/session-ingest";
import { logger } from "@/lib/logger";
import { startApprovalWaiter } from "@/lib/runs/approval-waiter";
import { executeRun } from "@/lib/runs/run-executor";
import { fireDueSchedules } from "@/lib/schedules/scheduler";
import { ensureWorkspacesDir } from "@/lib/security/code-execution";
import { watchKillSwitch } from "@/lib/runs/kill-switch";

export const RUN_QUEUE = "hookplane-run";
const IDLE_CHECK_MS = 60_000;
const WAKE_CHANNEL = "hp_worker_wake";
const CANCEL_CHANNEL = "hp_run_cancel";

export interface RunQueueOptions {
  /** Runs this process executes at once; 0 = enqueue only. */
  concurrency: number;
  leaseMs?: number;
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
  stop(): Promise<void>;
}

function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && process.env[name] !== "" && process.env[name] !== undefined ? value : fallback;
}

export async function startRunQueue(handle: DbHandle, options: RunQueueOptions): Promise<RunQueue> {
  const owner = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const leaseMs = options.leaseMs ?? envNumber("HOOKPLANE_LEASE_MS", 30_000);
  const sweepMs = options.sweepMs ?? envNumber("HOOKPLANE_SWEEP_MS", 2_000);
  const approvalHoldMs = options.approvalHoldMs ?? envNumber("HOOKPLANE_APPROVAL_HOLD_MS", 30_000);
  const workspacesDir = options.workspacesDir ?? ensureWorkspacesDir();
  const db = handle.db;

  const boss =
    handle.kind === "pglite"
      ? new PgBoss({ db: { executeSql: (text: string, values?: unknown[]) => handle.execute(text, values) } as never, supervise: true, schedule: false })
      : new PgBoss({ connectionString: handle.url, max: 3, supervise: true, schedule: false });
  boss.on("error", (error) => logger.warn({ err: error }, "pg-boss error"));
  await boss.start();
  if (!(await boss.getQueue(RUN_QUEUE))) {
    await boss.createQueue(RUN_QUEUE, { name: RUN_QUEUE, retryLimit: 0, expireInSeconds: 23 * 3600 }).catch(() => {});
  }
  // The embedded database belongs to this process alone: any claim in it died with the last one.
  if (handle.kind === "pglite") await releaseAllLeases(db);

  const waiter = await startApprovalWaiter(handle);
  const stopKillSwitch = await watchKillSwitch(db);
  const running = new Map<string, AbortController>();
  let stopping = false;
  let workerId: string | undefined;
  let freeSlot: (() => void) | undefined;

  const execute = async (runId: string) => {
    // Duplicate wake-ups are normal (a decision, the sweeper); one local execution per run.
    if (running.has(runId)) return;
    const controller = new AbortController();
    running.set(runId, controller);
    const claimed = await claimRun(db, { id: runId, owner, ttlMs: leaseMs }).catch(() => undefined);
    if (!claimed) {
      // finished, or another live worker has it
      running.delete(runId);
      freeSlot?.();
      return;
    }
    try {
      const result = await executeRun({ db, waiter, workspacesDir, approvalHoldMs }, runId, controller);
      logger.info({ runId, result }, "run step done");
    } catch (error) {
      logger.error({ err: error, runId }, "run execution failed");
    } finally {
      running.delete(runId);
      await releaseRun(db, { id: runId, owner }).catch(() => {});
      freeSlot?.();
    }
  };

  const waitForSlot = async () => {
    while (running.size >= options.concurrency && !stopping) {
      await new Promise<void>((resolve) => (freeSlot = resolve));
    }
  };

  if (options.concurrency > 0) {
    workerId = await boss.work<{ runId: string }>(RUN_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
      await waitForSlot();
      if (stopping) throw new Error("worker stopping");
      // The job only wakes us; the run's own row and lease carry the state, so the job ends here.
      void execute(job.data.runId);
    });
  }

  const unlistenWake = await handle.listen(WAKE_CHANNEL, () => {
    if (workerId) boss.notifyWorker(workerId);
  });
  const unlistenCancel = await handle.listen(CANCEL_CHANNEL, (runId) => running.get(runId)?.abort());

  const enqueue = async (runId: string) => {
    await boss.send(RUN_QUEUE, { runId });
    await handle.notify(WAKE_CHANNEL, "1");
  };

  const heartbeat = setInterval(async () => {
    try {
      const ids = [...running.keys()];
      const kept = new Set(await renewLeases(db, { owner, ids, ttlMs: leaseMs }));
      for (const id of ids) if (!kept.has(id)) running.get(id)?.abort(new LoopInterrupted("lost the run's lease"));
    } catch (error) {
      logger.warn({ err: error }, "lease heartbeat failed");
    }
  }, Math.max(200, Math.floor(leaseMs / 3)));

  let sweeping = false;
  // Outside sessions (Claude Code) that never said SessionEnd are ended after this much quiet.
  const sessionIdleMs = envNumber("HOOKPLANE_SESSION_IDLE_MS", 6 * 3600_000);
  let lastIdleCheck = 0;
  const sweeper = setInterval(async () => {
    if (sweeping || stopping) return;
    sweeping = true;
    try {
      for (const approval of await listExpiredApprovals(db)) {
        await settleApproval(db, {
          id: approval.id,
          status: "timed_out",
          decidedVia: "timeout",
          reason: `no decision in time; onTimeout ${approval.onTimeout}`,
        });
      }
      await fireDueSchedules(db, enqueue);
      if (Date.now() - lastIdleCheck >= IDLE_CHECK_MS) {
        lastIdleCheck = Date.now();
        await expireIdleSessions(handle, sessionIdleMs);
      }
      for (const runId of await listOrphanedRuns(db, { queuedOlderThanMs: Math.max(5_000, sweepMs * 3) })) {
        if (!running.has(runId)) await enqueue(runId);
      }
    } catch (error) {
      logger.warn({ err: error }, "run sweeper failed");
    } finally {
      sweeping = false;
    }
  }, sweepMs);

  return {
    enqueue,
    async cancel(runId) {
      await handle.notify(CANCEL_CHANNEL, runId);
      await enqueue(runId);
    },
    get active() {
      return running.size;
    },
    async stop() {
      stopping = true;
      freeSlot?.();
      clearInterval(heartbeat);
      clearInterval(sweeper);
      stopKillSwitch();
      // Interrupted runs keep their checkpoint and are resumed by the next worker.
      for (const controller of running.values()) controller.abort(new LoopInterrupted("worker shutting down"));
      const deadline = Date.now() + 10_000;
      while (running.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      await unlistenWake().catch(() => {});
      await unlistenCancel().catch(() => {});
      await waiter.stop().catch(() => {});
      await boss.stop({ graceful: true, wait: true, timeout: 5_000 }).catch(() => {});
    },
  };
}
