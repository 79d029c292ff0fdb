/**
 * What "nobody decided in time" means, in one place: the `approve` executor (a port that never
 * answers), the durable approval port (a caller still holding at expiry) and the expiry sweeper
 * (a parked run's approval) all time out by this rule, so the ledger, the inbox and the hooks read
 * the same answer and the same words whichever of them got there first.
 */
import type { OnTimeout } from "./ports";

export interface ApprovalTimeout {
  /** The hook's onTimeout answers, never a person: `allow` approves, anything else denies. */
  decision: "approve" | "deny";
  status: "timed_out";
  timedOut: true;
  reason: string;
}

/**
 * When an approval asked now stops waiting, or undefined for `onTimeout: wait` (no deadline: the
 * durable port lets a person take as long as they take).
 */
export function approvalDeadline(onTimeout: OnTimeout, timeoutMs: number, now: number): number | undefined {
  return onTimeout === "wait" ? undefined : now + timeoutMs;
}

/**
 * The timed-out answer for an approval that waited `waitedMs`. `onTimeout` is a string because the
 * database row keeps it as one; an unknown value denies (fail closed).
 */
export function approvalTimeout(onTimeout: OnTimeout | string, waitedMs: number): ApprovalTimeout {
  const decision = onTimeout === "allow" ? "approve" : "deny";
  return { decision, status: "timed_out", timedOut: true, reason: `no decision within ${formatWait(waitedMs)}; onTimeout ${onTimeout}` };
}

/**
 * Whole seconds from one second up: the sweeper knows the wait only as expiry minus request time,
 * two clocks a few milliseconds apart, and the rounding makes it say what the hook asked for.
 */
function formatWait(ms: number): string {
  const wait = Math.max(0, ms);
  return wait < 1000 ? `${Math.round(wait)} ms` : `${Math.round(wait / 1000)} s`;
}
