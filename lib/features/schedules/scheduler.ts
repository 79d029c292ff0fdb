/**
 * Fires due schedules: each firing becomes a run of the schedule's agent with Tailored AI's
 * template variables, its prompt rendered with them. Called from every worker's sweep; the
 * claim makes each firing happen once.
 */
import type { Db } from "@/db/client";
import { createRun } from "@/db/queries/runs";
import { claimScheduleFiring, listDueSchedules } from "@/db/queries/schedules";
import { renderTemplate } from "@/lib/core/hooks/template";
import { logger } from "@/lib/platform/logger";
import { nextRunAt, scheduleVars } from "./next-run";

export async function fireDueSchedules(db: Db, enqueue: (runId: string) => Promise<void>, now = new Date()): Promise<number> {
  let fired = 0;
  for (const schedule of await listDueSchedules(db, { now })) {
    const next = nextRunAt(schedule, now) ?? null;
    const claimed = await claimScheduleFiring(db, { id: schedule.id, dueAt: schedule.nextRunAt!, nextRunAt: next, firedAt: now });
    if (!claimed) continue;
    const vars = scheduleVars({ lastRunAt: schedule.lastRunAt, lastResponse: schedule.lastResponse, prompt: schedule.prompt });
    try {
      // The run is the schedule's project's, as everything it then does (hooks, prices, memory).
      const run = await createRun(db, {
        projectId: schedule.projectId,
        agentId: schedule.agentId,
        prompt: renderTemplate(schedule.prompt, vars),
        source: "schedule",
        scheduleId: schedule.id,
        vars,
      });
      await enqueue(run.id);
      fired++;
    } catch (error) {
      logger.error({ err: error, scheduleId: schedule.id }, "scheduled run could not start");
    }
  }
  return fired;
}
