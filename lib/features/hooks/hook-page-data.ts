/**
 * What every hooks page needs to name scopes: the project's agents (with their tools, for the
 * matcher preview) and schedules, its members and the single sign-on groups known.
 */
import "server-only";
import type { Db } from "@/db/client";
import { listAgents } from "@/db/queries/agents";
import { listScheduleSummaries } from "@/db/queries/schedules";
import { listGroupScopes } from "@/db/queries/hooks";
import { listMembers } from "@/db/queries/projects";
import { scopeOptions, type AgentRef, type PersonRef, type ScheduleRef } from "./hook-scopes";

const MAX_AGENTS = 1000;

export async function loadScopeContext(db: Db, projectId: string) {
  const [agentRows, scheduleRows, members, groupsInUse] = await Promise.all([
    listAgents(db, { projectId, limit: MAX_AGENTS }),
    listScheduleSummaries(db, { projectId }),
    listMembers(db, { projectId }),
    listGroupScopes(db, { projectId }),
  ]);
  const agents: AgentRef[] = agentRows.map((a) => ({ id: a.id, name: a.name, tools: a.tools }));
  const schedules: ScheduleRef[] = scheduleRows;
  const people: PersonRef[] = members.map((m) => ({ id: m.userId, email: m.email }));
  const groups = [...members.flatMap((m) => m.ssoGroups), ...groupsInUse];
  return { agents, schedules, scopes: scopeOptions(agents, schedules, people, groups) };
}
