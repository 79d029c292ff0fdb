/**
 * How an approval ends without a person: it times out (its deadline passed: the caller holding it,
 * or the sweeper for a parked run) or it is abandoned (nobody will come back for the answer: a
 * bridged request that left, a run that ended while asking). Each settles the row once; whoever
 * comes second (a person a moment quicker, another process's sweeper) finds it settled and the
 * first answer stands.
 */
import type { Db } from "@/db/client";
import { getApprovalInAnyProject, listExpiredApprovals, settleApproval, type ApprovalRow } from "@/db/queries/approvals";
import { approvalTimeout } from "@/lib/core/hooks/approval-timeout";

/** How long an approval was given: from its request to its deadline. */
function waitOf(row: ApprovalRow): number {
  return (row.expiresAt?.getTime() ?? row.requestedAt.getTime()) - row.requestedAt.getTime();
}

/**
 * Times a pending approval out, by the one timeout rule, and answers the row as it now stands.
 * `waitedMs`: the wait as the hook asked it, when the caller knows it (the row knows it only to
 * the millisecond of two clocks).
 */
export async function expireApproval(db: Db, row: ApprovalRow, waitedMs = waitOf(row)): Promise<ApprovalRow> {
  const timeout = approvalTimeout(row.onTimeout, waitedMs);
  const settled = await settleApproval(db, { id: row.id, status: timeout.status, decidedVia: "timeout", reason: timeout.reason });
  return settled ?? (await getApprovalInAnyProject(db, { id: row.id }))!;
}

/**
 * The sweeper's share: every approval past its deadline times out. Their parked runs are woken by
 * the run sweeper, which finds parked runs whose approval is settled.
 */
export async function expireDueApprovals(db: Db): Promise<void> {
  for (const approval of await listExpiredApprovals(db)) await expireApproval(db, approval);
}

/**
 * Abandons a pending approval: it can no longer be decided. `ended` says whether this call ended
 * it; when it did not, a decision made a moment before stands as it was.
 */
export async function abandonApproval(db: Db, id: string, reason: string): Promise<{ row: ApprovalRow; ended: boolean }> {
  const settled = await settleApproval(db, { id, status: "abandoned", decidedVia: "abandoned", reason });
  return settled ? { row: settled, ended: true } : { row: (await getApprovalInAnyProject(db, { id }))!, ended: false };
}
