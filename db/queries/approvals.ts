import { and, desc, eq, isNotNull, lt, ne, sql, type SQL } from "drizzle-orm";
import { CHANNELS } from "@/db/notify-channels";
import type { Db } from "../client";
import { agents, approvals, runs, type ApprovalStatus, type ApproverGroups } from "../schema";

export type ApprovalRow = typeof approvals.$inferSelect;

async function announce(db: Db, approvalId: string) {
  await db.execute(sql`select pg_notify(${CHANNELS.approvals}, ${JSON.stringify({ approvalId })})`);
}

/**
 * The approval of one hook for one tool call: created once, found again when a resumed run asks
 * the same question (the unique index makes the pair idempotent across restarts). It belongs to
 * its run's project, read from the run in the insert itself so no caller can name another.
 */
export async function getOrCreateApproval(
  db: Db,
  params: {
    runId: string;
    hookKey: string;
    toolName?: string;
    toolInput?: unknown;
    toolCallId: string;
    message?: string;
    onTimeout: string;
    expiresAt: Date | null;
    approvers?: ApproverGroups | null;
  },
): Promise<{ row: ApprovalRow; created: boolean }> {
  const [inserted] = await db
    .insert(approvals)
    .values({
      ...params,
      projectId: sql`(select ${runs.projectId} from ${runs} where ${runs.id} = ${params.runId})`,
      toolInput: params.toolInput ?? null,
    })
    .onConflictDoNothing()
    .returning();
  if (inserted) {
    await announce(db, inserted.id);
    return { row: inserted, created: true };
  }
  const [existing] = await db
    .select()
    .from(approvals)
    .where(and(eq(approvals.runId, params.runId), eq(approvals.toolCallId, params.toolCallId), eq(approvals.hookKey, params.hookKey)));
  return { row: existing, created: false };
}

async function findApproval(db: Db, where: SQL | undefined) {
  const [row] = await db
    .select({ approval: approvals, agentName: agents.name, agentId: agents.id, runActorKey: runs.actorKey, runActorUserId: runs.actorUserId })
    .from(approvals)
    .innerJoin(runs, eq(runs.id, approvals.runId))
    .innerJoin(agents, eq(agents.id, runs.agentId))
    .where(where);
  return row ? { ...row.approval, agentName: row.agentName, agentId: row.agentId, runActorKey: row.runActorKey, runActorUserId: row.runActorUserId } : undefined;
}

/** An approval of the project; undefined for another project's (the route answers 404). */
export async function getApproval(db: Db, params: { projectId: string; id: string }) {
  return findApproval(db, and(eq(approvals.id, params.id), eq(approvals.projectId, params.projectId)));
}

/**
 * Any project's approval, for code that holds the approval's id from its own row rather than from
 * a request: the run engine, a decision link (bound to one approval), the notices, the stream
 * hub's reader. Whatever it then does is in `projectId` of the row.
 */
export async function getApprovalInAnyProject(db: Db, params: { id: string }) {
  return findApproval(db, eq(approvals.id, params.id));
}

/** Settles a pending approval; undefined when it was already settled (the caller answers 409). */
export async function settleApproval(
  db: Db,
  params: {
    id: string;
    status: Exclude<ApprovalStatus, "pending">;
    decidedBy?: string;
    decidedVia: string;
    reason?: string;
    /** The input the approver approved, when they edited it. */
    approvedInput?: Record<string, unknown>;
  },
) {
  const [row] = await db
    .update(approvals)
    .set({
      status: params.status,
      decidedBy: params.decidedBy ?? null,
      decidedVia: params.decidedVia,
      reason: params.reason ?? null,
      ...(params.approvedInput !== undefined && { approvedInput: params.approvedInput }),
      decidedAt: new Date(),
    })
    .where(and(eq(approvals.id, params.id), eq(approvals.status, "pending")))
    .returning();
  if (row) await announce(db, row.id);
  return row;
}

export async function listApprovals(
  db: Db,
  params: { projectId: string; status?: ApprovalStatus; limit: number; before?: { at: string; id: string }; actorUserId?: string },
) {
  const where = [eq(approvals.projectId, params.projectId)];
  if (params.status) where.push(eq(approvals.status, params.status));
  if (params.actorUserId) where.push(eq(runs.actorUserId, params.actorUserId));
  if (params.before) {
    where.push(
      sql`(${approvals.requestedAt}, ${approvals.id}) < (${params.before.at}::timestamptz, ${params.before.id}::uuid)`,
    );
  }
  const rows = await db
    .select({ approval: approvals, agentName: agents.name, agentId: agents.id, actorUserId: runs.actorUserId, actorLabel: runs.actorLabel })
    .from(approvals)
    .innerJoin(runs, eq(runs.id, approvals.runId))
    .innerJoin(agents, eq(agents.id, runs.agentId))
    .where(and(...where))
    .orderBy(desc(approvals.requestedAt), desc(approvals.id))
    .limit(params.limit);
  // Whose agent asked: the person behind the run (an outside agent's session).
  return rows.map((r) => ({
    ...r.approval,
    agentName: r.agentName,
    agentId: r.agentId,
    ...(r.actorLabel && { actor: { ...(r.actorUserId && { userId: r.actorUserId }), label: r.actorLabel } }),
  }));
}

/** Pending approvals whose timeout passed and whose policy is not to wait. */
export async function listExpiredApprovals(db: Db) {
  return db
    .select()
    .from(approvals)
    .where(
      and(
        eq(approvals.status, "pending"),
        isNotNull(approvals.expiresAt),
        lt(approvals.expiresAt, new Date()),
        ne(approvals.onTimeout, "wait"),
      ),
    );
}
