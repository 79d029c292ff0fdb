/**
 * How the runtime asks a person (an approve hook) and what it is answered. Its own module because
 * the ledger keeps the decision and the ports take the ledger: both import this, neither the other.
 */

export type OnTimeout = "deny" | "allow" | "wait";

export interface ApprovalRequest {
  runId: string;
  hookId: string;
  toolName?: string;
  toolInput?: unknown;
  toolCallId?: string;
  timeoutMs: number;
  onTimeout: OnTimeout;
  message?: string;
  /** Only these people and roles may decide (the approve hook's `approvers`). */
  approvers?: { users?: string[]; roles?: string[] };
}

/** Where an approval stands once nobody is waiting on it any more. */
export type SettledApprovalStatus = "approved" | "denied" | "timed_out" | "abandoned";

export interface ApprovalDecision {
  decision: "approve" | "deny";
  decidedBy?: string;
  reason?: string;
  /** True when nobody decided in time and the onTimeout policy answered. Not a person's "no". */
  timedOut: boolean;
  /** What a durable port knows besides the answer, for the ledger: pending → status, who, when, through what. */
  approvalId?: string;
  status?: SettledApprovalStatus;
  decidedVia?: string;
  requestedAt?: string;
  decidedAt?: string;
  /** The input the approver approved when they edited it: the call runs with this one. */
  input?: Record<string, unknown>;
}

/** Nobody has decided yet and the caller should not wait here: the run suspends on `approvalId`. */
export interface ApprovalPending {
  pending: true;
  approvalId: string;
}

export type ApprovalAnswer = ApprovalDecision | ApprovalPending;

export function isPending(answer: ApprovalAnswer): answer is ApprovalPending {
  return (answer as ApprovalPending).pending === true;
}

/**
 * Asks a person. The port owns the durable wait (a row in the approval inbox, the dashboard, the
 * API) and applies `onTimeout`. It answers with the decision, or `pending` when the run should
 * stop waiting in memory and suspend (resumed when the decision comes). A decision may be
 * `abandoned`: nobody waits for it any more (the caller left), and it can no longer be decided.
 * The runtime also enforces `timeoutMs` itself in case a port never answers. `signal` aborts when
 * the run is cancelled or the caller stops waiting.
 */
export interface ApprovalPort {
  request(req: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer>;
}
