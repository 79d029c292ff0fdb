/**
 * When a schedule fires next: cron expressions through croner, intervals as plain arithmetic.
 * Pure, so the scheduler and the API's validation share it.
 */
import { Cron } from "croner";

export interface ScheduleTiming {
  cron?: string | null;
  intervalMs?: number | null;
}

/** The error croner gives for a bad expression, or undefined when it parses. */
export function cronError(expression: string): string | undefined {
  try {
    new Cron(expression, { paused: true });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

export function nextRunAt(timing: ScheduleTiming, from: Date): Date | undefined {
  if (timing.intervalMs) return new Date(from.getTime() + timing.intervalMs);
  if (timing.cron) return new Cron(timing.cron, { paused: true }).nextRun(from) ?? undefined;
  return undefined;
}

/** Tailored AI's cron template variables; `next_task` is the schedule's own prompt. */
export function scheduleVars(params: { lastRunAt: Date | null; lastResponse: string | null; prompt: string }): Record<string, string> {
  return {
    last_run: params.lastRunAt ? params.lastRunAt.toISOString() : "never",
    last_run_epoch: params.lastRunAt ? String(Math.floor(params.lastRunAt.getTime() / 1000)) : "0",
    last_response: params.lastResponse ?? "",
    next_task: params.prompt,
  };
}
