/**
 * The durable approval port of a run: the question is a row in `approvals` (found again, not asked
 * twice, when a resumed run reaches the same tool call), the answer comes from the dashboard or
 * the API. A caller holds for a while (`holdMs`); past that, the port answers `pending` and the run
 * suspends, giving its worker back; the decision or the timeout sweeper resumes it. A caller that
 * nobody will resume (a bridged request) abandons the approval when it stops waiting instead.
 */
import type { Db } from "@/db/client";
import { getApprovalInAnyProject, getOrCreateApproval, type ApprovalRow } from "@/db/queries/approvals";
import { setRunStatus } from "@/db/queries/runs";
import { approvalDeadline } from "@/lib/core/hooks/approval-timeout";
import type { ApprovalAnswer, ApprovalDecision, ApprovalPort, ApprovalRequest } from "@/lib/core/hooks/ports";
import type { ApproverGroups } from "@/db/schema";
import { abandonApproval, expireApproval } from "./approval-endings";
import { decisionOf, settledEvent } from "./approval-settled";
import type { ApprovalWaiter } from "./approval-waiter";
import type { PayloadFor } from "@/lib/core/hooks/event-payloads";

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
  announce<T extends ApprovalAnnouncement>(type: T, data: PayloadFor<T>): void | Promise<void>;
  now?: () => number;
}

export function createDbApprovalPort(deps: ApprovalPortDeps): ApprovalPort {
  const now = deps.now ?? Date.now;

  const settled = async (row: ApprovalRow): Promise<ApprovalDecision> => {
    const decision = decisionOf(row)!;
    await deps.announce("approval.settled", settledEvent(row, decision));
    return decision;
  };

  return {
    async request(req: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer> {
      const deadline = approvalDeadline(req.onTimeout, req.timeoutMs, now());
      const { row: first, created } = await getOrCreateApproval(deps.db, {
        runId: req.runId,
        hookKey: req.hookId,
        toolName: req.toolName,
        toolInput: req.toolInput,
        toolCallId: req.toolCallId ?? "",
        message: req.message,
        onTimeout: req.onTimeout,
        expiresAt: deadline === undefined ? null : new Date(deadline),
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
          row = await expireApproval(deps.db, row, req.timeoutMs);
          break;
        }
        if (now() >= holdUntil || signal?.aborted) {
          if (deps.whenCallerLeaves === "suspend") return { pending: true, approvalId: row.id };
          row = (await abandonApproval(deps.db, row.id, "the caller stopped waiting for a decision")).row;
          break;
        }
        // Listen first, then read: a decision made before the listener was in place (a person
        // quick on the dashboard while this call was still announcing) is in the row, and one
        // made after wakes the listener. Reading first would sleep through it until expiry.
        const listening = new AbortController();
        const woken = deps.waiter.wait(row.id, Math.min(expiresAt, holdUntil) - now(), signal ? AbortSignal.any([signal, listening.signal]) : listening.signal);
        row = (await getApprovalInAnyProject(deps.db, { id: row.id }))!;
        if (row.status === "pending") {
          await woken;
          row = (await getApprovalInAnyProject(deps.db, { id: row.id }))!;
        } else listening.abort();
        if (row.status !== "pending") break;
      }
      await setRunStatus(deps.db, { id: req.runId, status: "running" });
      return settled(row);
    },
  };
}
