/**
 * The runs filters of the query string (api.md), shared by the runs list, the runs export and the
 * dashboard's links, so a filtered list and its export always select the same runs.
 */
import { z } from "zod";
import { pgDateSchema } from "@/lib/core/safe-input";
import type { Db } from "@/db/client";
import type { RunFilters } from "@/db/queries/runs";
import { RUN_STATUSES } from "@/db/schema";
import { findAgentOr404 } from "@/lib/features/agents/agent-service";
import { personReferenceSchema, userIdOfPerson } from "@/lib/platform/auth/person-reference";
import { OUTCOMES } from "@/lib/core/hooks/events";

export const runFiltersSchema = z.object({
  agent: z.string().optional(),
  status: z.enum(RUN_STATUSES).optional(),
  outcome: z.enum(OUTCOMES).optional(),
  tool: z.string().optional(),
  blocked: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
  q: z.string().max(200).optional(),
  from: pgDateSchema.optional(),
  to: pgDateSchema.optional(),
  minCost: z.coerce.number().min(0).optional(),
  /** A person's runs: their user id or email. */
  actor: personReferenceSchema.optional(),
});
export type RunFiltersQuery = z.infer<typeof runFiltersSchema>;

/** The query's agent (name or id, of the project) becomes an id; an unknown agent is a 404, not an empty list. */
export async function resolveRunFilters(db: Db, projectId: string, query: RunFiltersQuery): Promise<RunFilters> {
  const { agent, minCost, actor, ...rest } = query;
  const agentId = agent ? (await findAgentOr404(db, projectId, agent)).id : undefined;
  return { ...rest, agentId, minCostUsd: minCost, ...(actor && { actorUserId: await userIdOfPerson(db, actor) }) };
}
