/**
 * The durable approval port of a run: the question is a row in `approvals` (found again, not asked
 * twice, when a resumed run reaches the same tool call), the answer comes from the dashboard or
 * the API. A run holds its worker for a short while; past that it parks (`waiting_approval`) and
 * gives the slot back, and the decision or the timeout sweeper resumes it from its checkpoint.
 */
import type { Db } from "@/db/client";
import { getApproval, getOrCreateApproval, settleApproval, type ApprovalRow } from "@/db/queries/approvals";
import { setRunStatus } from "@/db/queries/runs";
import type { ApprovalDecision, ApprovalPort, ApprovalRequest } from "@/lib/hooks/ports";
import type { ApprovalWaiter } from "./approval-waiter";

export interface ApprovalPortDeps {
  db: Db;
  waiter: ApprovalWaiter;
  /** How long a run keeps its worker while a person decides, before it parks. */
  holdMs: number;
  /** Parks the run: aborts the loop with LoopInterrupted so it resumes later. */
  park(): void;
  /** Records approval.requested / approval.settled in the run's event stream. */
  emit(type: "approval.requested" | "approval.settled", data: Record<string, unknown>): void;
  now?: () => number;
}

function decisionOf(row: ApprovalRow): ApprovalDecision | undefined {
  switch (row.status) {
    case "approved":
      return { decision: "approve", decidedBy: row.decidedBy ?? undefined, reason: row.reason ?? undefined, timedOut: false };
    case "denied":
      return { decision: "deny", decidedBy: row.decidedBy ?? undefined, reason: row.reason ?? undefined, timedOut: false };
    case "timed_out":
      return {
        decision: row.onTimeout === "allow" ? "approve" : "deny",
        reason: row.reason ?? "no decision in time",
        timedOut: true,
      };
    default:
      return undefined;
  }
}

export function createDbApprovalPort(deps: ApprovalPortDeps): ApprovalPort {
  const now = deps.now ?? Date.now;

  const settled = (row: ApprovalRow, decision: ApprovalDecision, fresh: boolean) => {
    if (fresh) {
      deps.emit("approval.settled", {
        approvalId: row.id,
        toolCallId: row.toolCallId,
        toolName: row.toolName,
        toolInput: row.toolInput,
        decision: decision.decision,
        decidedBy: decision.decidedBy,
        reason: decision.reason,
        timedOut: decision.timedOut,
      });
    }
    return decision;
  };

  return {
    async request(req: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalDecision> {
      const { row: first, created } = await getOrCreateApproval(deps.db, {
        runId: req.runId,
        hookKey: req.hookId,
        toolName: req.toolName,
        toolInput: req.toolInput,
        toolCallId: req.toolCallId ?? "",
        message: req.message,
        onTimeout: req.onTimeout,
        expiresAt: req.onTimeout === "wait" ? null : new Date(now() + req.timeoutMs),
      });
      let row = first;
      if (created) {
        deps.emit("approval.requested", {
          approvalId: row.id,
          toolCallId: row.toolCallId,
          toolName: row.toolName,
          toolInput: row.toolInput,
          hookId: req.hookId,
          message: req.message,
          expiresAt: row.expiresAt?.toISOString(),
        });
      }
      // A resumed run finds the answer it parked for; it was announced when it was given.
      const known = decisionOf(row);
      if (known) return settled(row, known, true);

      await setRunStatus(deps.db, { id: req.runId, status: "waiting_approval" });
      const holdUntil = now() + deps.holdMs;
      for (;;) {
        const expiresAt = row.expiresAt?.getTime() ?? Infinity;
        if (now() >= expiresAt) {
          const timedOut = await settleApproval(deps.db, {
            id: row.id,
            status: "timed_out",
            decidedVia: "timeout",
            reason: `no decision within ${req.timeoutMs} ms; onTimeout ${req.onTimeout}`,
          });
          row = timedOut ?? (await getApproval(deps.db, { id: row.id }))!;
          break;
        }
        if (now() >= holdUntil || signal?.aborted) {
          if (!signal?.aborted) deps.park();
          // Whatever we return is discarded: the loop sees the interruption and stops.
          return { decision: "deny", reason: "run parked until a decision", timedOut: false };
        }
        await deps.waiter.wait(row.id, Math.min(expiresAt, holdUntil) - now(), signal);
        row = (await getApproval(deps.db, { id: row.id }))!;
        if (row.status !== "pending") break;
      }
      await setRunStatus(deps.db, { id: req.runId, status: "running" });
      return settled(row, decisionOf(row)!, true);
    },
  };
}
