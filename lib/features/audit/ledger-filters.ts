/**
 * The hook ledger filters of the query string (schema.ts `ledgerFiltersSchema`) as the ledger
 * query takes them, shared by the ledger list and its export so both select the same rows.
 */
import type { Db } from "@/db/client";
import type { HookLedgerFilters } from "@/db/queries/hook-invocations";
import { findAgentOr404 } from "@/lib/features/agents/agent-service";
import { userIdOfPerson } from "@/lib/platform/auth/person-reference";
import type { LedgerFiltersQuery } from "./schema";

/**
 * The filters over the project's ledger. The query's agent (name or id) becomes an id; an unknown
 * agent, or another project's, is a 404, as in the runs list.
 */
export async function resolveLedgerFilters(db: Db, projectId: string, query: LedgerFiltersQuery): Promise<HookLedgerFilters> {
  const { hook, agent, actor, ...rest } = query;
  const agentId = agent ? (await findAgentOr404(db, projectId, agent)).id : undefined;
  return { ...rest, projectId, hookKey: hook, agentId, ...(actor && { actorKey: `user:${await userIdOfPerson(db, actor)}` }) };
}
