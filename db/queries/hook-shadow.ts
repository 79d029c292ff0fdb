import { and, desc, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../client";
import { agents, hookInvocations, runs } from "../schema";
import { invocationToolName } from "./hook-invocations";

/**
 * What a hook recorded in shadow mode on live traffic in a project since `since`: how often it
 * fired and would have blocked (or failed), and its newest such rows with their run's agent and
 * the call's tool, for the hook's page. Rows of the hook's key in its scope (an earlier hook of the
 * same key elsewhere is another hook).
 */
export async function getHookShadowRecord(db: Db, params: { projectId: string; hookKey: string; scope: string; since: Date; limit: number }) {
  const shadow = and(
    eq(hookInvocations.projectId, params.projectId),
    eq(hookInvocations.hookKey, params.hookKey),
    gte(hookInvocations.createdAt, params.since),
    eq(hookInvocations.mode, "shadow"),
    eq(hookInvocations.matched, true),
    // Rows written before the ledger kept scopes have none: they are the key's.
    sql`(${hookInvocations.scope} = ${params.scope} or ${hookInvocations.scope} is null)`,
  );
  const [counts, latest] = await Promise.all([
    db
      .select({
        fired: sql<number>`count(*)::int`,
        wouldBlock: sql<number>`(count(*) filter (where ${hookInvocations.verdict} = 'block'))::int`,
        failed: sql<number>`(count(*) filter (where ${hookInvocations.failed} or ${hookInvocations.timedOut}))::int`,
        runs: sql<number>`count(distinct ${hookInvocations.runId})::int`,
      })
      .from(hookInvocations)
      .where(shadow),
    db
      .select({
        id: hookInvocations.id,
        runId: hookInvocations.runId,
        eventSeq: hookInvocations.eventSeq,
        verdict: hookInvocations.verdict,
        reason: hookInvocations.reason,
        failed: hookInvocations.failed,
        createdAt: hookInvocations.createdAt,
        agentName: agents.name,
        toolName: invocationToolName,
      })
      .from(hookInvocations)
      .leftJoin(runs, eq(runs.id, hookInvocations.runId))
      .leftJoin(agents, eq(agents.id, runs.agentId))
      .where(shadow)
      .orderBy(desc(hookInvocations.createdAt), desc(hookInvocations.id))
      .limit(params.limit),
  ]);
  return { ...counts[0], latest };
}
