/**
 * The hook ledger filters of the query string, shared by the ledger list and its export so both
 * select the same rows.
 */
import { z } from "zod";
import { pgDateSchema } from "@/lib/core/safe-input";
import type { Db } from "@/db/client";
import type { HookLedgerFilters } from "@/db/queries/hook-invocations";
import { findAgentOr404 } from "@/lib/features/agents/agent-service";
import { personReferenceSchema, userIdOfPerson } from "@/lib/platform/auth/person-reference";
import { EVENT_NAMES } from "@/lib/core/hooks/events";

export const HOOK_VERDICTS = ["allow", "block", "skip"] as const;

export const ledgerFiltersSchema = z.object({
  /** The hook's id as written in its spec (`no-prod`), which is the ledger's hook key. */
  hook: z.string().max(200).optional(),
  event: z.enum(EVENT_NAMES as [string, ...string[]]).optional(),
  verdict: z.enum(HOOK_VERDICTS).optional(),
  matched: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
  agent: z.string().optional(),
  runId: z.uuid().optional(),
  from: pgDateSchema.optional(),
  to: pgDateSchema.optional(),
  q: z.string().max(200).optional(),
  /** Whose agents: a person's user id or email (their rows only, after their runs are gone too). */
  actor: personReferenceSchema.optional(),
});
export type LedgerFiltersQuery = z.infer<typeof ledgerFiltersSchema>;

/**
 * The filters over the project's ledger. The query's agent (name or id) becomes an id; an unknown
 * agent, or another project's, is a 404, as in the runs list.
 */
export async function resolveLedgerFilters(db: Db, projectId: string, query: LedgerFiltersQuery): Promise<HookLedgerFilters> {
  const { hook, agent, actor, ...rest } = query;
  const agentId = agent ? (await findAgentOr404(db, projectId, agent)).id : undefined;
  return { ...rest, projectId, hookKey: hook, agentId, ...(actor && { actorKey: `user:${await userIdOfPerson(db, actor)}` }) };
}
