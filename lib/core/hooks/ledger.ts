/**
 * One ledger row per hook considered by a dispatch, matched or not: the run view, the audit search
 * and the hook health panel read these. Rows have one fixed shape (cheap to allocate, one insert).
 */
import type { EventName } from "./events";
import type { ApprovalDecision } from "./approval-port";
import type { HookActionType } from "./hook-actions";

export type HookVerdict = "allow" | "block" | "skip";

export interface LedgerEntry {
  hookId: string;
  hookVersion: number | undefined;
  event: EventName;
  scope: string;
  action: HookActionType;
  mode: "enforce" | "shadow";
  /** False when the hook did not run; `reason` says why (disabled, matcher, when, kill switch...). */
  matched: boolean;
  /** What the hook decided (or, in shadow mode, would have decided). Undefined when not matched. */
  verdict: HookVerdict | undefined;
  reason: string | undefined;
  /** The hook erred or timed out; `verdict` is then what its onFailure made of it. */
  failed: boolean;
  timedOut: boolean;
  /** The verdict did not take effect: shadow mode, or a block on an informational event. */
  ignored: boolean;
  exitCode: number | undefined;
  /** Capped and redacted. */
  stdout: string | undefined;
  stderr: string | undefined;
  /** What the hook gave the model (output or injected context), capped and redacted. */
  output: string | undefined;
  /**
   * Approvals: who decided, through what, when it was asked and decided, and whether it was the
   * timeout policy that did. One row per approval, written when it settled (pending → status).
   */
  approval: ApprovalDecision | undefined;
  /** What the hook changed in the call (input or output), before and after: undefined when nothing. */
  modification?: LedgerModification;
  startedAt: number;
  durationMs: number;
}

/**
 * A change to a tool call, as the ledger keeps it. Input: `proposed` is what the hook (or the
 * approver) was shown, `approved` what a person approved when they edited it, `effective` what the
 * call carries after this hook. Output: the `original` (or, when the change redacts secrets, only
 * its `originalSha256`) and what `replaced` it. `applied` is false in shadow mode. A value over the
 * ledger's cap is kept as `{sha256, bytes}`.
 */
export type LedgerModification =
  | { kind: "input"; proposed: unknown; approved?: unknown; effective: unknown; applied: boolean }
  | { kind: "output"; original?: unknown; originalSha256?: string; replaced: unknown; applied: boolean };

/** Ledger text is capped: a chatty hook must not bloat the audit store. */
export const LEDGER_TEXT_CAP = 16 * 1024;
