/**
 * The hooks a run obeys, in execution order: the instance-wide ones, then its project's global,
 * the agent's, its schedule's (Tailored AI appends job hooks after profile hooks). A stored spec that no longer validates is
 * left out and logged, never crashing the run.
 */
import type { Db } from "@/db/client";
import { listHooksForScopes } from "@/db/queries/hooks";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import type { RuntimeHook } from "@/lib/core/hooks/runtime-types";
import { logger } from "@/lib/platform/logger";

/**
 * In a flow's stage, the stage agent's own hooks come after the flow's (`stageAgentId`): global,
 * the flow agent's, the stage agent's, the schedule's.
 */
export function scopesForRun(params: { agentId: string; stageAgentId?: string; scheduleId?: string | null }): string[] {
  return [
    "global",
    `agent:${params.agentId}`,
    ...(params.stageAgentId && params.stageAgentId !== params.agentId ? [`agent:${params.stageAgentId}`] : []),
    ...(params.scheduleId ? [`schedule:${params.scheduleId}`] : []),
  ];
}

export async function loadRunHooks(
  db: Db,
  params: { projectId: string; agentId: string; stageAgentId?: string; scheduleId?: string | null },
): Promise<RuntimeHook[]> {
  const rows = await listHooksForScopes(db, { projectId: params.projectId, scopes: scopesForRun(params) });
  const hooks: RuntimeHook[] = [];
  for (const row of rows) {
    const parsed = hookSpecSchema.safeParse(row.spec);
    if (!parsed.success) {
      logger.warn({ hook: row.key, scope: row.scope, issues: parsed.error.issues }, "stored hook no longer validates; skipped");
      continue;
    }
    hooks.push({ ...parsed.data, enabled: row.enabled && parsed.data.enabled, version: row.version });
  }
  return hooks;
}
