/**
 * The process's due work, each feature's own, called from one place: on one tick (every sweepMs)
 * approvals past their deadline time out, due schedules fire, quiet bridged sessions end and the
 * run queue wakes its orphans, in that order (a timed-out approval's parked run is among the
 * orphans of the same tick). Beside the tick: the kill-switch watcher, the settled-approval notice
 * updates, and the two pg-boss jobs (retention's hourly pass, alert evaluation).
 */
import type PgBoss from "pg-boss";
import type { DbHandle } from "@/db/client";
import { alertConfig } from "@/lib/features/alerts/alert-config";
import { startAlertEvaluation } from "@/lib/features/alerts/alert-schedule";
import { expireDueApprovals } from "@/lib/features/approvals/approval-endings";
import { watchSettledApprovals } from "@/lib/features/approvals/approval-notices";
import { expireIdleSessions } from "@/lib/features/bridge/session-ingest";
import { startRetentionJob } from "@/lib/features/retention/retention-job";
import { watchKillSwitch } from "@/lib/features/hooks/kill-switch";
import type { WorkedRunQueue } from "@/lib/features/runs/queue/run-queue";
import { fireDueSchedules } from "@/lib/features/schedules/scheduler";
import { logger } from "@/lib/platform/logger";

/** How often quiet bridged sessions are looked for (on the tick, at most this often). */
const IDLE_CHECK_MS = 60_000;

export interface HousekeepingOptions {
  /** Whether this process works runs (concurrency > 0): alerts and retention are worked where runs are. */
  works: boolean;
  sweepMs: number;
  /**
   * How often alert rules are evaluated (once per period across every process that works runs);
   * default HOOKPLANE_ALERT_EVAL_MS; 0: not by this process.
   */
  alertEvaluationMs?: number;
  /**
   * Retention's hourly pass (lib/features/retention/retention-job.ts), worked where runs are worked;
   * `false` leaves it out (tests of the queue alone). `retentionPollSeconds`: how often a worker looks.
   */
  retention?: boolean;
  retentionPollSeconds?: number;
}

export interface Housekeeping {
  /** Ticks completed: how a caller knows the sweep has looked since a change. */
  readonly sweeps: number;
  /** Ends the tick and the kill-switch watcher (first, before the queue drains). */
  stopTicking(): void;
  /** Ends the rest (after the queue has drained, before pg-boss stops). */
  stop(): Promise<void>;
}

export async function startHousekeeping(handle: DbHandle, boss: PgBoss, queue: WorkedRunQueue, options: HousekeepingOptions): Promise<Housekeeping> {
  const db = handle.db;
  const retention =
    options.retention === false ? undefined : await startRetentionJob(boss, db, { work: options.works, pollingIntervalSeconds: options.retentionPollSeconds });
  // Every process, web or worker, reacts to settlements: whichever gets there first updates the messages.
  const stopNoticeUpdates = await watchSettledApprovals(handle);
  const stopKillSwitch = await watchKillSwitch(db);
  // Alerts are the workers' job too: a serve-only web process (concurrency 0) leaves them to them.
  const stopAlerts = await startAlertEvaluation(boss, db, {
    evaluationMs: options.works ? (options.alertEvaluationMs ?? alertConfig().evaluationMs) : 0,
  });

  let ticking = false;
  let stopped = false;
  let sweeps = 0;
  let lastIdleCheck = 0;
  const tick = setInterval(async () => {
    if (ticking || stopped) return;
    ticking = true;
    try {
      // Approvals past their deadline time out (approvals' rule); their parked runs are among the orphans below.
      await expireDueApprovals(db);
      await fireDueSchedules(db, queue.enqueue);
      if (Date.now() - lastIdleCheck >= IDLE_CHECK_MS) {
        lastIdleCheck = Date.now();
        // Outside sessions (Claude Code) that never said SessionEnd, ended after the bridge's quiet spell.
        await expireIdleSessions(handle);
      }
      await queue.wakeOrphans();
    } catch (error) {
      logger.warn({ err: error }, "run sweeper failed");
    } finally {
      ticking = false;
      sweeps++;
    }
  }, options.sweepMs);

  return {
    get sweeps() {
      return sweeps;
    },
    stopTicking() {
      stopped = true;
      clearInterval(tick);
      stopKillSwitch();
    },
    async stop() {
      await stopNoticeUpdates().catch(() => {});
      await stopAlerts().catch(() => {});
      await retention?.stop().catch(() => {});
    },
  };
}
