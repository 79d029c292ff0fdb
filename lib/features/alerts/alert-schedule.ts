/**
 * Alert rules are evaluated by the workers on a schedule, once per period across any number of
 * processes, through pg-boss: every worker process (and the embedded web process, which works its
 * own runs on PGlite) sends a throttled job each few seconds (`sendThrottled` with one key: pg-boss's
 * unique index on the time slot lets one job per period in, whoever sends it), and whichever
 * process fetches that job evaluates. The state transitions are claimed in the database as well
 * (alert-evaluator.ts), so even an evaluation that overlaps the next one notifies once.
 */
import type PgBoss from "pg-boss";
import type { Db } from "@/db/client";
import { logger } from "@/lib/platform/logger";
import { reachConfig } from "@/lib/features/approvals/reach-config";
import { alertConfig } from "./alert-config";
import { evaluateAlerts, type EvaluationResult } from "./alert-evaluator";
import type { AlertNoticeDeps } from "./alert-notices";

export const ALERT_QUEUE = "hookplane-alerts";
const JOB_KEY = "evaluate";
/** How often a process offers the period's job (it gets in once per period, from any process). */
const MAX_CHECK_MS = 5_000;
const QUEUE_OPTIONS = { policy: "standard", retryLimit: 0, expireInSeconds: 15 * 60 } as const;

export interface AlertEvaluationOptions {
  /** The period; 0: this process does not evaluate. */
  evaluationMs: number;
  /** What the notices need; read from the environment at each evaluation by default. */
  deps?: () => AlertNoticeDeps;
  /** Called after each evaluation this process ran, with the period's start (tests). */
  onEvaluated?: (result: EvaluationResult, slot: Date | undefined) => void;
}

export function alertNoticeDepsFromEnv(): AlertNoticeDeps {
  return { reach: reachConfig(), smtp: alertConfig().smtp };
}

/** Starts the loop on `boss`; returns the function that stops it (waiting for an evaluation in flight). */
export async function startAlertEvaluation(boss: PgBoss, db: Db, options: AlertEvaluationOptions): Promise<() => Promise<void>> {
  if (options.evaluationMs <= 0) return async () => {};
  if (!(await boss.getQueue(ALERT_QUEUE))) await boss.createQueue(ALERT_QUEUE, { name: ALERT_QUEUE, ...QUEUE_OPTIONS }).catch(() => {});
  const periodSeconds = Math.max(1, Math.round(options.evaluationMs / 1000));
  let stopped = false;
  let running: Promise<void> | undefined;

  const tick = async () => {
    await boss.sendThrottled(ALERT_QUEUE, {}, { retryLimit: 0 }, periodSeconds, JOB_KEY);
    const [job] = await boss.fetch<Record<string, never>>(ALERT_QUEUE, { includeMetadata: true });
    if (!job || stopped) {
      if (job) await boss.fail(ALERT_QUEUE, job.id, { message: "the process stopped" }).catch(() => {});
      return;
    }
    try {
      const result = await evaluateAlerts(db, (options.deps ?? alertNoticeDepsFromEnv)());
      await boss.complete(ALERT_QUEUE, job.id, { rules: result.rules, transitions: result.transitions.length });
      options.onEvaluated?.(result, job.singletonOn ?? undefined);
    } catch (error) {
      logger.warn({ err: error }, "alert evaluation failed");
      await boss.fail(ALERT_QUEUE, job.id, { message: String(error) }).catch(() => {});
    }
  };

  const timer = setInterval(() => {
    if (running || stopped) return;
    running = tick()
      .catch((error) => logger.warn({ err: error }, "could not schedule the alert evaluation"))
      .finally(() => (running = undefined));
  }, Math.min(options.evaluationMs, MAX_CHECK_MS));
  timer.unref();

  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
