/**
 * What a settled approval says, built from its row in one place: the ledger's decision (the
 * approval port hands it to the `approve` hook) and approval.settled's payload (the run's stream,
 * the hooks on it, the chat message changed to say how it ended). Decided, timed out or abandoned,
 * whoever settled it, everyone reads the same answer.
 */
import type { ApprovalRow } from "@/db/queries/approvals";
import { approvalTimeout } from "@/lib/core/hooks/approval-timeout";
import type { ApprovalDecision } from "@/lib/core/hooks/ports";
import type { PayloadFor } from "@/lib/core/hooks/event-payloads";

/** The answer, who, how, when; undefined while the approval is pending. */
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
      return { ...common, decision: "approve", status: "approved", timedOut: false, ...(row.approvedInput && { input: row.approvedInput }) };
    case "denied":
      return { ...common, decision: "deny", status: "denied", timedOut: false };
    case "timed_out": {
      // Every timeout is settled with the rule's reason; a row without one is told it the same way.
      const timeout = approvalTimeout(row.onTimeout, (row.expiresAt?.getTime() ?? row.requestedAt.getTime()) - row.requestedAt.getTime());
      return { ...common, ...timeout, reason: row.reason ?? timeout.reason };
    }
    case "abandoned":
      return { ...common, decision: "deny", status: "abandoned", timedOut: false };
    default:
      return undefined;
  }
}

/** approval.settled's payload (hook-model.md). */
export function settledEvent(row: ApprovalRow, decision: ApprovalDecision | undefined = decisionOf(row)): PayloadFor<"approval.settled"> {
  return {
    approvalId: row.id,
    toolCallId: row.toolCallId,
    toolName: row.toolName,
    toolInput: row.toolInput,
    hookId: row.hookKey,
    // Only a settled row is announced; one that is not (a caller's mistake) reads as nobody's yes.
    status: decision?.status ?? "abandoned",
    // Not settled (a caller's mistake): nobody said yes.
    decision: decision?.decision ?? "deny",
    decidedBy: decision?.decidedBy,
    decidedVia: decision?.decidedVia,
    reason: decision?.reason,
    timedOut: decision?.timedOut ?? false,
    ...(row.approvedInput && { approvedInput: row.approvedInput }),
  };
}
