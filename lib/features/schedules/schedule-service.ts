/**
 * Schedules through the API (and, later, the dashboard): validated timing, the first firing
 * time, the schedule's own hooks (scope `schedule:<id>`, run after the agent's), audit rows.
 */
import { z } from "zod";
import type { Db } from "@/db/client";
import { audited } from "@/db/queries/audit";
import { createHook, deleteHooksOfScope } from "@/db/queries/hooks";
import { createSchedule, deleteSchedule, getSchedule, listSchedules } from "@/db/queries/schedules";
import { findAgentOr404 } from "@/lib/features/agents/agent-service";
import { AppError } from "@/lib/platform/api/app-error";
import { issueFrom } from "@/lib/core/issues";
import { fieldsOf } from "@/lib/core/null-fields";
import { pgIntSchema } from "@/lib/core/safe-input";
import type { Principal } from "@/lib/platform/auth/roles";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { describeCodeAction, mayConfigureAction } from "@/lib/features/hooks/hook-service";
import { cronError, nextRunAt } from "./next-run";

export const scheduleRequestSchema = z
  .object({
    agent: z.string().min(1),
    name: z.string().max(200).optional(),
    cron: z
      .string()
      .min(1)
      .superRefine(issueFrom((value: string) => {
        const error = cronError(value);
        return error && `not a cron expression: ${error}`;
      }))
      .optional(),
    intervalMs: pgIntSchema.min(1000, "intervalMs is at least 1000 ms").optional(),
    prompt: z.string().min(1).max(100_000),
    enabled: z.boolean().default(true),
    hooks: z.array(hookSpecSchema).max(50).optional(),
  })
  .superRefine((s, ctx) => {
    if (Boolean(s.cron) === Boolean(s.intervalMs)) {
      ctx.addIssue({ code: "custom", message: "give exactly one of cron or intervalMs", path: ["cron"] });
    }
  });

export function scheduleToApi(row: Awaited<ReturnType<typeof getSchedule>> & {}) {
  return fieldsOf(row, ["id", "name", "agentId", "cron", "intervalMs", "prompt", "enabled", "lastRunAt", "nextRunAt", "lastResponse", "createdAt"]);
}

export async function createScheduleAudited(db: Db, principal: Principal, input: z.infer<typeof scheduleRequestSchema>) {
  const runsCode = input.hooks?.find((h) => !mayConfigureAction(principal, h.action));
  if (runsCode) throw AppError.forbidden(`Only admins may create ${describeCodeAction(runsCode.action)}. You are ${principal.role}.`);
  const { row } = await audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "schedule.create", entityType: "schedule" },
    async (tx) => {
      const agent = await findAgentOr404(tx, principal.projectId, input.agent);
      const row = await createSchedule(tx, {
        projectId: agent.projectId,
        agentId: agent.id,
        name: input.name,
        cron: input.cron,
        intervalMs: input.intervalMs,
        prompt: input.prompt,
        enabled: input.enabled,
        nextRunAt: input.enabled ? (nextRunAt(input, new Date()) ?? null) : null,
      });
      for (const hook of input.hooks ?? []) {
        const created = await createHook(tx, { projectId: agent.projectId, spec: { ...hook, scope: `schedule:${row.id}` }, actor: principal.label });
        if (!created) throw AppError.conflict(`Two hooks of this schedule share the id "${hook.id}"`);
      }
      return { row, agentName: agent.name };
    },
    ({ row, agentName }) => ({ entityId: row.id, after: { ...input, agent: agentName } }),
  );
  return scheduleToApi(row);
}

export async function listSchedulesForApi(db: Db, projectId: string) {
  return (await listSchedules(db, { projectId })).map(scheduleToApi);
}

/** The project's schedule; another project's is a 404, as one that does not exist. */
export async function findScheduleOr404(db: Db, projectId: string, id: string) {
  const row = z.uuid().safeParse(id).success ? await getSchedule(db, { projectId, id }) : undefined;
  if (!row) throw AppError.notFound(`Schedule "${id}"`);
  return row;
}

export async function deleteScheduleAudited(db: Db, principal: Principal, id: string) {
  await audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "schedule.delete", entityType: "schedule" },
    async (tx) => {
      const row = await findScheduleOr404(tx, principal.projectId, id);
      await deleteSchedule(tx, { projectId: principal.projectId, id: row.id });
      await deleteHooksOfScope(tx, { projectId: principal.projectId, scope: `schedule:${row.id}` });
      return row;
    },
    (row) => ({ entityId: row.id, before: scheduleToApi(row) }),
  );
}
