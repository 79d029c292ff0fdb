/**
 * `limit`: lets a call through while fewer than `max` were let through in the last `windowMs`
 * for the same subject (the person, the session or the agent) and hook, counted by the runtime's
 * rate limit port (across every web process on one database). A refusal names the limit and the
 * count, so the agent can say why and the ledger keeps how many there were. A call it let through
 * that a later hook of the chain blocks is given back (giveBack): only calls that went through count.
 * Its take travels with a dispatch that suspends for a person (spentOn), given back on a deny.
 */
import type { RateLimitTake, SpentToken } from "../ports";
import type { LimitAction } from "../spec";
import type { ActionOutcome, ActionRun, AsyncExecutor, CompiledAction } from "./types";

/** `60000` → "1 min", `3600000` → "1 h", `90000` → "90 s". */
export function windowText(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

/** Whose calls count together, and how a refusal names them. */
function subjectOf(action: LimitAction, run: ActionRun): { key: string; label: string } {
  const event = run.event;
  if (action.per === "actor" && event.actor) return { key: event.actor.key, label: event.actor.label };
  // No person behind the event (a run Hookplane executes): its session is the narrowest subject.
  if (action.per === "actor" || action.per === "session") return { key: `run:${event.runId}`, label: "this session" };
  return { key: `agent:${event.agentId ?? event.agentName}`, label: `agent ${event.agentName}` };
}

export function compileLimit(action: LimitAction, timeoutMs: number): CompiledAction {
  const window = windowText(action.windowMs);
  const request = (run: ActionRun) => {
    const subject = subjectOf(action, run);
    return { subject, take: { key: `${run.hook.scope}/${run.hook.id}/${subject.key}`, max: action.max, windowMs: action.windowMs } };
  };
  const outcome = (subject: { label: string }, { allowed, count }: RateLimitTake, take: SpentToken, giveBack?: () => void): ActionOutcome => {
    if (allowed) return { verdict: "allow", reason: `${count} of ${action.max} in ${window} for ${subject.label}`, ...(giveBack && { giveBack, spentOn: take }) };
    return {
      verdict: "block",
      reason: `${action.reason ?? `Rate limit: ${action.max} calls per ${window} for ${subject.label}`} (${count} already in the last ${window})`,
    };
  };
  const executor: AsyncExecutor = {
    async: true,
    timeoutMs,
    async run(run, signal) {
      const port = run.options.limits;
      if (!port) return { failure: "rate limits are not counted in this runtime" };
      const { subject, take } = request(run);
      const taken = await port.take(take, signal);
      return outcome(subject, taken, take, port.release && (() => port.release!(take, taken)));
    },
    // Most calls spend a token this process already holds (rate-limit-leases.ts): no wait, no timer.
    now(run) {
      const port = run.options.limits;
      if (!port?.takeHeld) return undefined;
      const { subject, take } = request(run);
      const held = port.takeHeld(take);
      return held && outcome(subject, held, take, port.release && (() => port.release!(take, held)));
    },
  };
  return { secretNames: [], executor };
}
