/**
 * The durable approval port of a run: the question is a row in `approvals` (found again, not asked
 * twice, when a resumed run reaches the same tool call), the answer comes from the dashboard or
 * the API. A caller holds for a while (`holdMs`); past that, the port answers `pending` and the run
 * suspends, giving its worker back; the decision or the timeout sweeper resumes it. A caller that
 * nobody will resume (a bridged request) abandons the approval when it stops waiting instead.
 */
import type { Db } from "@/db/client";
import { getApprovalInAnyProject, getOrCreateApproval, settleApproval, type ApprovalRow } from "@/db/queries/approvals";
import { setRunStatus } from "@/db/queries/runs";
import type { ApprovalAnswer, ApprovalDecision, ApprovalPort, ApprovalRequest } from "@/lib/core/hooks/ports";
import type { ApproverGroups } from "@/db/schema";
import type { ApprovalWaiter } from "./approval-waiter";

export type ApprovalAnnouncement = "approval.requested" | "approval.settled";

export interface ApprovalPortDeps {
  db: Db;
  waiter: ApprovalWaiter;
  /** How long a caller keeps waiting in memory before the run suspends (or, for `abandon`, the most it waits). */
  holdMs: number;
  /**
   * When the caller stops waiting (its signal aborts, or the hold ends): `suspend` answers
   * `pending` and the run resumes later; `abandon` settles the approval as abandoned, since
   * nobody will come back for it (the bridge's held HTTP request).
   */
  whenCallerLeaves: "suspend" | "abandon";
  /** Records approval.requested / approval.settled in the run's stream and runs their hooks. */
  announce(type: ApprovalAnnouncement, data: Record<string, unknown>): void | Promise<void>;
  now?: () => number;
}

/** What the ledger and the hooks learn of a settled approval: the answer, who, how, when. */
export function decisionOf(row: ApprovalRow): ApprovalDecision | undefined {
  const common = {
    approvalId: row.id,
    decidedVia: row.decidedVia ?? undefined,
    requestedAt: row.requestedAt.toISOString(),
    decidedAt: row.decidedAt?.toISOString(),
    ...(row.decidedBy && { decidedBy: row.decidedBy }),
    ...(row.reason && { reason: row.reason }),
  };
  switch (row.status) {
    case "approved":
      return { ...common, decision: "approve", status: "approved", timedOut: false };
    case "denied":
      return { ...common, decision: "deny", status: "denied", timedOut: false };
    case "timed_out":
      return { ...common, decision: row.onTimeout === "allow" ? "approve" : "deny", status: "timed_out", reason: row.reason ?? "no decision in time", timedOut: true };
    case "abandoned":
      return { ...common, decision: "deny", status: "abandoned", timedOut: false };
    default:
      return undefined;
  }
}

/** approval.settled's payload (hook-model.md). */
export function settledAnnouncement(row: ApprovalRow, decision: ApprovalDecision): Record<string, unknown> {
  return {
    approvalId: row.id,
    toolCallId: row.toolCallId,
    toolName: row.toolName,
    toolInput: row.toolInput,
    hookId: row.hookKey,
    status: decision.status,
    decision: decision.decision,
    decidedBy: decision.decidedBy,
    decidedVia: decision.decidedVia,
    reason: decision.reason,
    timedOut: decision.timedOut,
  };
}

export function createDbApprovalPort(deps: ApprovalPortDeps): ApprovalPort {
  const now = deps.now ?? Date.now;

  const settled = async (row: ApprovalRow): Promise<ApprovalDecision> => {
    const decision = decisionOf(row)!;
    await deps.announce("approval.settled", settledAnnouncement(row, decision));
    return decision;
  };

  return {
    async request(req: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer> {
      const { row: first, created } = await getOrCreateApproval(deps.db, {
        runId: req.runId,
        hookKey: req.hookId,
        toolName: req.toolName,
        toolInput: req.toolInput,
        toolCallId: req.toolCallId ?? "",
        message: req.message,
        onTimeout: req.onTimeout,
        expiresAt: req.onTimeout === "wait" ? null : new Date(now() + req.timeoutMs),
        approvers: (req.approvers as ApproverGroups | undefined) ?? null,
      });
      let row = first;
      if (created) {
        await deps.announce("approval.requested", {
          approvalId: row.id,
          toolCallId: row.toolCallId,
          toolName: row.toolName,
          toolInput: row.toolInput,
          hookId: req.hookId,
          message: req.message,
          expiresAt: row.expiresAt?.toISOString(),
          ...(row.approvers && { approvers: row.approvers }),
        });
      }
      // A resumed run finds the answer it suspended for, and says so once, now.
      if (row.status !== "pending") return settled(row);

      await setRunStatus(deps.db, { id: req.runId, status: "waiting_approval" });
      const holdUntil = now() + deps.holdMs;
      for (;;) {
        const expiresAt = row.expiresAt?.getTime() ?? Infinity;
        if (now() >= expiresAt) {
          row =
            (await settleApproval(deps.db, {
              id: row.id,
              status: "timed_out",
              decidedVia: "timeout",
              reason: `no decision within ${req.timeoutMs} ms; onTimeout ${req.onTimeout}`,
            })) ?? (await getApprovalInAnyProject(deps.db, { id: row.id }))!;
          break;
        }
        if (now() >= holdUntil || signal?.aborted) {
          if (deps.whenCallerLeaves === "suspend") return { pending: true, approvalId: row.id };
          row =
            (await settleApproval(deps.db, {
              id: row.id,
              status: "abandoned",
              decidedVia: "abandoned",
              reason: "the caller stopped waiting for a decision",
            })) ?? (await getApprovalInAnyProject(deps.db, { id: row.id }))!;
          break;
        }
        await deps.waiter.wait(row.id, Math.min(expiresAt, holdUntil) - now(), signal);
        row = (await getApprovalInAnyProject(deps.db, { id: row.id }))!;
        if (row.status !== "pending") break;
      }
      await setRunStatus(deps.db, { id: req.runId, status: "running" });
      return settled(row);
    },
  };
}
