/**
 * `approve`: pause until a person decides (Loom `approve`, Claude Code `ask`). The approval port
 * owns the durable wait and its timeout; the runtime still enforces `timeoutMs` (a moment later:
 * PORT_TIMEOUT_GRACE_MS) for a port that never answers. A
 * timeout is recorded as a timeout (`timedOut: true`), never as a person's "no". When the port
 * answers `pending`, waiting is a state: the hook suspends the run (no verdict, no ledger row yet)
 * and is asked again when the run resumes.
 */
import { approvalTimeout } from "../approval-timeout";
import { compileGlobs } from "../matcher";
import { isPending, type ApprovalAnswer, type ApprovalDecision, type ApprovalRequest, type OnTimeout } from "../ports";
import type { ApproveAction } from "../spec";
import type { ActionOutcome, ActionRun, CompiledAction } from "./types";

/** Loom's `security.hitlTimeoutMs` default: 30 minutes, then deny. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 30 * 60 * 1000;

export function compileApprove(action: ApproveAction): CompiledAction {
  const tools = compileGlobs(action.tools);
  const globs = action.tools?.join(", ");
  return {
    secretNames: [],
    filter: action.tools
      ? (event) => {
          const tool = event.data.toolName;
          if (typeof tool !== "string") return "approve tools: this event has no tool";
          return tools(tool) ? undefined : `tool ${tool} not in approve tools [${globs}]`;
        }
      : undefined,
    executor: {
      async: true,
      timeoutMs: undefined,
      run: (run, signal) =>
        awaitApproval(run, signal, { timeoutMs: action.timeoutMs, onTimeout: action.onTimeout, message: action.message, approvers: action.approvers }),
    },
  };
}

export interface ApprovalAsk {
  timeoutMs?: number;
  onTimeout?: OnTimeout;
  message?: string;
  approvers?: ApprovalRequest["approvers"];
}

const TIMED_OUT = Symbol("timed out");
/**
 * How long past `timeoutMs` the runtime's own deadline waits for the port: the port applies the
 * timeout and records it (a durable port settles its row as timed out), so the runtime's deadline
 * is a backstop for a port that never answers. At the same instant it raced the port: a timer can
 * fire a busy event-loop turn early against the wall clock (libuv's cached loop time), so the
 * runtime gave up while the port still saw the approval as not due, took that as its caller
 * leaving, and left the row pending for the run's end to abandon (seen on a loaded CI machine).
 */
export const PORT_TIMEOUT_GRACE_MS = 1_000;
/** How long a port may take to say where an approval stands once its caller stopped waiting. */
const ABORT_GRACE_MS = 2_000;
const ABORTED = Symbol("aborted");

export async function awaitApproval(run: ActionRun, signal: AbortSignal, ask: ApprovalAsk): Promise<ActionOutcome> {
  const timeoutMs = ask.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  const onTimeout = ask.onTimeout ?? "deny";
  if (run.shadow) {
    return { verdict: "allow", reason: `shadow: would ask a person (timeout ${timeoutMs} ms, then ${onTimeout})` };
  }
  const port = run.options.approvals;
  if (!port) return { failure: "no approval port is configured, nobody can be asked" };
  const data = run.event.data;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let portAnswered = false;
  try {
    const asked = Promise.resolve(
      port.request(
        {
          runId: run.event.runId,
          hookId: run.hook.id,
          toolName: typeof data.toolName === "string" ? data.toolName : undefined,
          toolInput: data.toolInput,
          toolCallId: typeof data.toolCallId === "string" ? data.toolCallId : undefined,
          timeoutMs,
          onTimeout,
          message: ask.message,
          ...(ask.approvers && { approvers: ask.approvers }),
        },
        controller.signal,
      ),
    );
    const waits: Promise<ApprovalAnswer | typeof TIMED_OUT | typeof ABORTED>[] = [
      asked,
      new Promise((resolve) => {
        onAbort = () => resolve(ABORTED);
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      }),
    ];
    // "wait" means no runtime deadline: the port (durable) decides how long a person may take.
    if (onTimeout !== "wait") waits.push(new Promise((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs + PORT_TIMEOUT_GRACE_MS))));
    let answer = await Promise.race(waits);
    if (answer === ABORTED) {
      // The run stops waiting (cancel, shutdown, a caller that left): a durable port answers at
      // once with where the approval stands (pending: the run suspends; or abandoned).
      controller.abort();
      answer = await Promise.race([asked, new Promise<typeof ABORTED>((resolve) => setTimeout(() => resolve(ABORTED), ABORT_GRACE_MS))]);
    }
    portAnswered = answer !== TIMED_OUT && answer !== ABORTED;
    if (answer === ABORTED) return { failure: "aborted while waiting for an approval" };
    if (answer !== TIMED_OUT && isPending(answer)) return { suspend: { approvalId: answer.approvalId } };
    if (answer !== TIMED_OUT && answer.status === "abandoned") {
      return { suspend: { approvalId: answer.approvalId ?? "", abandoned: answer.reason ?? "nobody waits for it any more", approval: answer } };
    }
    // The port never answered: the one timeout rule speaks for it (no status: no row says so).
    const decision: ApprovalDecision = answer === TIMED_OUT ? timedOutHere(onTimeout, timeoutMs) : answer;
    return approvalOutcome(decision, onTimeout);
  } catch (error) {
    return { failure: `approval request failed: ${(error as Error)?.message ?? String(error)}` };
  } finally {
    clearTimeout(timer);
    // Tell the port nobody is waiting any more (timeout, cancel), so it can settle its record.
    if (!portAnswered) controller.abort();
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

function timedOutHere(onTimeout: OnTimeout, timeoutMs: number): ApprovalDecision {
  const { decision, timedOut, reason } = approvalTimeout(onTimeout, timeoutMs);
  return { decision, timedOut, reason };
}

function approvalOutcome(decision: ApprovalDecision, onTimeout: OnTimeout): ActionOutcome {
  const by = decision.decidedBy ? ` by ${decision.decidedBy}${decision.decidedVia ? ` via ${decision.decidedVia}` : ""}` : "";
  const why = decision.reason ? `: ${decision.reason}` : "";
  if (decision.timedOut) {
    return {
      verdict: decision.decision === "approve" ? "allow" : "block",
      reason: `approval timed out (onTimeout: ${onTimeout})${why}`,
      approval: decision,
    };
  }
  if (decision.decision === "approve" && decision.input !== undefined) {
    return { verdict: "allow", reason: `approved with an edited input${by}${why}`, approval: decision, modify: { input: decision.input } };
  }
  return decision.decision === "approve"
    ? { verdict: "allow", reason: `approved${by}${why}`, approval: decision }
    : { verdict: "block", reason: `denied${by}${why}`, approval: decision };
}
