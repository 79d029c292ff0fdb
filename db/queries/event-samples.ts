import { and, desc, eq, gte, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { Db } from "../client";
import { agents, hookInvocations, projectMembers, runEvents, runs, users } from "../schema";

/** Recent recorded events of one type in a project, to try a hook against (optionally of one agent). */
export async function listRecentEvents(db: Db, params: { projectId: string; type: string; agentId?: string; limit: number }) {
  return db
    .select({ runId: runEvents.runId, seq: runEvents.seq, ts: runEvents.ts, data: runEvents.data, agentId: runs.agentId, agentName: agents.name })
    .from(runEvents)
    .innerJoin(runs, eq(runs.id, runEvents.runId))
    .innerJoin(agents, eq(agents.id, runs.agentId))
    .where(and(eq(runs.projectId, params.projectId), eq(runEvents.type, params.type), params.agentId ? eq(runs.agentId, params.agentId) : undefined))
    .orderBy(desc(runEvents.id))
    .limit(params.limit);
}

/**
 * A project's newest runs (of one agent, or of all its own and bridged agents), optionally in the
 * window they started in, each with its agent and schedule: what a replay dispatches them as.
 */
export async function listLatestRuns(db: Db, params: { projectId: string; agentId?: string; limit: number; since?: Date; until?: Date }) {
  return db
    .select({ id: runs.id, agentId: runs.agentId, agentName: agents.name, scheduleId: runs.scheduleId })
    .from(runs)
    .innerJoin(agents, eq(agents.id, runs.agentId))
    .where(
      and(
        eq(runs.projectId, params.projectId),
        params.agentId ? eq(runs.agentId, params.agentId) : undefined,
        params.since ? gte(runs.createdAt, params.since) : undefined,
        params.until ? lt(runs.createdAt, params.until) : undefined,
      ),
    )
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(params.limit);
}

/** Every event of some runs (read in their project first: listLatestRunIds), in order, for replaying a draft hook over what happened. */
export async function listEventsOfRuns(db: Db, params: { runIds: string[]; types: string[] }) {
  if (params.runIds.length === 0) return [];
  return db
    .select({ runId: runEvents.runId, seq: runEvents.seq, type: runEvents.type, ts: runEvents.ts, data: runEvents.data })
    .from(runEvents)
    .where(and(inArray(runEvents.runId, params.runIds), inArray(runEvents.type, params.types)))
    .orderBy(runEvents.runId, runEvents.seq);
}

/** (run id, event seq) pairs where an enforced hook's block took effect. */
export async function listEffectiveBlocks(db: Db, params: { runIds: string[] }) {
  if (params.runIds.length === 0) return [];
  return db
    .select({
      runId: hookInvocations.runId,
      eventSeq: hookInvocations.eventSeq,
      hookKey: hookInvocations.hookKey,
      reason: hookInvocations.reason,
      action: hookInvocations.action,
      scope: hookInvocations.scope,
      failed: hookInvocations.failed,
    })
    .from(hookInvocations)
    .where(
      and(
        inArray(hookInvocations.runId, params.runIds),
        eq(hookInvocations.verdict, "block"),
        eq(hookInvocations.ignored, false),
        sql`${hookInvocations.mode} is distinct from 'shadow'`,
      ),
    );
}

/**
 * Who acted in each of some runs (bridged sessions only), as a hook would see them now: their key,
 * label, current role in the run's project and single sign-on groups. Replaying a draft bound to a
 * person or a group needs them.
 */
export async function listRunActors(db: Db, params: { runIds: string[] }) {
  if (params.runIds.length === 0) return [];
  return db
    .select({
      runId: runs.id,
      key: runs.actorKey,
      userId: runs.actorUserId,
      label: runs.actorLabel,
      email: users.email,
      groups: users.ssoGroups,
      role: projectMembers.role,
    })
    .from(runs)
    .leftJoin(users, eq(users.id, runs.actorUserId))
    .leftJoin(projectMembers, and(eq(projectMembers.projectId, runs.projectId), eq(projectMembers.userId, runs.actorUserId)))
    .where(and(inArray(runs.id, params.runIds), isNotNull(runs.actorKey)));
}
