/**
 * The chain rules (docs/hook-model.md, Precedence), as pure functions of a hook and what the chain
 * knows so far: whether a hook is asked at all, whether its scope takes in the call, and what its
 * outcome does to the rest of the chain. The dispatch (dispatch.ts) applies their answers; the
 * table test (chain-rules.test.ts) reads them row by row. They take plain values and return a
 * string, so the dispatch's hot path allocates nothing for them.
 */
import type { CompiledHook } from "./compiled-hooks";
import type { HookEvent } from "./event";
import type { HookVerdict } from "./ledger";

/**
 * What one hook's outcome does to the chain:
 * - `continue`: the chain goes on (an allow, or a failure whose onFailure is continue);
 * - `shadow`: recorded as decided, nothing applied (shadow mode);
 * - `block`: the call is blocked and the rest of the chain is not run;
 * - `waive`: a deny a person's exception waives: recorded, not applied;
 * - `note`: a block on an event that cannot be blocked: recorded as ignored, told as a reminder;
 * - `stop`: a failure that stops the chain where nothing can block (herdctl's continue_on_error: false);
 * - `skip`: the hook skipped the rest of the chain.
 */
export type ChainStep = "continue" | "shadow" | "block" | "waive" | "note" | "stop" | "skip";

/**
 * The step for a hook's outcome (`failed` when it erred or timed out) on a blocking event or not.
 * `waived`: a person's exception matches the call and waives this hook (waivedBy).
 */
export function chainStep(outcome: HookVerdict | "failed", shadow: boolean, failureBlocks: boolean, blocking: boolean, waived: boolean): ChainStep {
  if (outcome === "failed") {
    if (!failureBlocks) return "continue";
    if (shadow) return "shadow";
    return blocking ? "block" : "stop";
  }
  if (shadow) return "shadow";
  if (outcome === "block") return blocking ? (waived ? "waive" : "block") : "note";
  return outcome === "skip" ? "skip" : "continue";
}

/**
 * What an exception waives: a `block` hook's deny or an `approve` hook's question, of any scope but
 * a person's (one person's deny and their exception: the deny wins). Never a rate limit, a guard
 * that runs code or calls out, or a hook that failed: those keep failing closed.
 */
export function waivedBy(hook: CompiledHook): boolean {
  return (hook.actionType === "block" || hook.actionType === "approve") && hook.scopeTarget?.kind !== "person";
}

/**
 * Why an approve hook is not asked: a person's exception waives it, or an earlier `allow` hook let
 * the call through. Undefined: ask (and for every other action).
 */
export function whyNotAsked(hook: CompiledHook, exception: CompiledHook | null | undefined, granted: string | undefined): string | undefined {
  if (hook.actionType !== "approve") return undefined;
  if (exception && waivedBy(hook)) return `not asked: exception ${exception.id} allows this call for this person`;
  return granted !== undefined ? `not asked: hook ${granted} allows this call` : undefined;
}

/** Why a scoped hook (agent, schedule, person, group) does not apply to this call; undefined: it does. */
export function whyScopeExcludes(scope: string, target: NonNullable<CompiledHook["scopeTarget"]>, event: HookEvent): string | undefined {
  // In a flow, a hook scoped to the flow applies to every stage, one scoped to the stage agent to its stage.
  const flow = event.flow;
  if (target.kind === "agent" && target.id !== event.agentId && target.id !== event.agentName && target.id !== flow?.id && target.id !== flow?.name) {
    return `scope ${scope} does not apply to agent ${event.agentName}`;
  }
  if (target.kind === "schedule" && target.id !== event.scheduleId) {
    return `scope ${scope} does not apply to ${event.scheduleId ? `schedule ${event.scheduleId}` : "a run without a schedule"}`;
  }
  if (target.kind === "person" && target.id !== event.actor?.userId) {
    return `scope ${scope} does not apply to ${event.actor ? `the calls of ${event.actor.label}` : "a run no person's agent sent"}`;
  }
  if (target.kind === "group" && !event.actor?.groups?.includes(target.id)) {
    return `scope ${scope} does not apply to ${event.actor ? `${event.actor.label}, not in group ${target.id}` : "a run no person's agent sent"}`;
  }
  return undefined;
}
