/**
 * The runs filters of the query string (schema.ts `runFiltersSchema`) as the runs query takes them,
 * shared by the runs list and the runs export, so a filtered list and its export select the same runs.
 */
import type { Db } from "@/db/client";
import type { RunFilters } from "@/db/queries/runs";
import { findAgentOr404 } from "@/lib/features/agents/agent-service";
import { userIdOfPerson } from "@/lib/platform/auth/person-reference";
import type { RunFiltersQuery } from "./schema";

/** The query's agent (name or id, of the project) becomes an id; an unknown agent is a 404, not an empty list. */
export async function resolveRunFilters(db: Db, projectId: string, query: RunFiltersQuery): Promise<RunFilters> {
  const { agent, minCost, actor, ...rest } = query;
  const agentId = agent ? (await findAgentOr404(db, projectId, agent)).id : undefined;
  return { ...rest, agentId, minCostUsd: minCost, ...(actor && { actorUserId: await userIdOfPerson(db, actor) }) };
}
