import { and, eq, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "../client";
import { approvalNotices, approvals, projectMembers, slackRequestNonces, users, type Role } from "../schema";
import { findPerson } from "./users";

export type ApprovalNoticeRow = typeof approvalNotices.$inferSelect;

export async function insertApprovalNotice(db: Db, params: Omit<typeof approvalNotices.$inferInsert, "id" | "createdAt" | "settledAt">) {
  const [row] = await db.insert(approvalNotices).values(params).returning();
  return row;
}

/**
 * Takes the messages of a settled approval that were not updated yet: each row is returned to
 * exactly one caller, whichever process asks first. Nothing while the approval is pending, so
 * the NOTIFY of its creation costs one statement that changes nothing.
 */
export async function claimUnsettledNotices(db: Db, params: { approvalId: string }) {
  return db
    .update(approvalNotices)
    .set({ settledAt: sql`now()` })
    .where(
      and(
        eq(approvalNotices.approvalId, params.approvalId),
        isNull(approvalNotices.settledAt),
        sql`exists (select 1 from ${approvals} where ${approvals.id} = ${approvalNotices.approvalId} and ${approvals.status} <> 'pending')`,
      ),
    )
    .returning();
}

/** Gives a claimed message back (its update failed), so a later settlement reaction tries again. */
export async function releaseNoticeClaim(db: Db, params: { id: string }) {
  await db.update(approvalNotices).set({ settledAt: null }).where(eq(approvalNotices.id, params.id));
}

export async function listApprovalNotices(db: Db, params: { approvalId: string }) {
  return db.select().from(approvalNotices).where(eq(approvalNotices.approvalId, params.approvalId));
}

/**
 * Enabled people approvers are chosen from in a project: email, role in that project and Slack
 * member id. Its members, and instance admins (admin in every project) who are not members.
 */
export async function listApproverCandidates(db: Db, params: { projectId: string }) {
  const rows = await db
    .select({ email: users.email, memberRole: projectMembers.role, instanceAdmin: users.instanceAdmin, slackUserId: users.slackUserId })
    .from(users)
    .leftJoin(projectMembers, and(eq(projectMembers.userId, users.id), eq(projectMembers.projectId, params.projectId)))
    .where(and(eq(users.disabled, false), or(isNotNull(projectMembers.role), eq(users.instanceAdmin, true))));
  return rows.map((r) => ({ email: r.email, role: (r.instanceAdmin ? "admin" : r.memberRole!) as Role, slackUserId: r.slackUserId }));
}

/** The person a Slack member id is linked to; their role depends on the approval's project (getMemberRole). */
export async function getUserBySlackId(db: Db, params: { slackUserId: string }) {
  return findPerson(db, eq(users.slackUserId, params.slackUserId));
}

export async function setUserSlackId(db: Db, params: { id: string; slackUserId: string | null }) {
  const [row] = await db.update(users).set({ slackUserId: params.slackUserId }).where(eq(users.id, params.id)).returning({ id: users.id, email: users.email, slackUserId: users.slackUserId });
  return row;
}

/**
 * Records a Slack request signature as seen. False when it was seen before (a replay), in any
 * process; signatures older than `keepMs` are forgotten, since their timestamps are refused anyway.
 */
export async function rememberSlackSignature(db: Db, params: { signature: string; keepMs: number }): Promise<boolean> {
  await db.delete(slackRequestNonces).where(lt(slackRequestNonces.seenAt, new Date(Date.now() - params.keepMs)));
  const inserted = await db.insert(slackRequestNonces).values({ signature: params.signature }).onConflictDoNothing().returning();
  return inserted.length === 1;
}
