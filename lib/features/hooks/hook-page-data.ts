/**
 * What every hooks page needs to name scopes: the project's agents (with their tools, for the
 * matcher preview) and schedules.
 */
import "server-only";
import type { Db } from "@/db/client";
import { listAgents } from "@/db/queries/agents";
import { listScheduleSummaries } from "@/db/queries/schedules";
import { scopeOptions, type AgentRef, type ScheduleRef } from "./hook-scopes";

const MAX_AGENTS = 1000;

export async function loadScopeContext(db: Db, projectId: string) {
  const [agentRows, scheduleRows] = await Promise.all([
    listAgents(db, { projectId, limit: MAX_AGENTS }),
    listScheduleSummaries(db, { projectId }),
  ]);
  const agents: AgentRef[] = agentRows.map((a) => ({ id: a.id, name: a.name, tools: a.tools }));
  const schedules: ScheduleRef[] = scheduleRows;
  return { agents, schedules, scopes: scopeOptions(agents, schedules) };
}
