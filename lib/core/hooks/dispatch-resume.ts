/**
 * A dispatch that does not start at the top of its chain: resumed at the hook that waited for a
 * person, picked up after a crash cut a side effect short, ended because nobody waits for the
 * approval any more, or recorded as not run by the kill switch. The runtime (runtime.ts) calls
 * these once per dispatch, before the chain runs.
 */
import type { Dispatch } from "./dispatch";
import { newEntry } from "./ledger-row";
import type { DispatchResult, HookProgress, HookRuntimeOptions, SuspendPoint } from "./runtime-types";

/**
 * Picks a suspended dispatch up at its waiting hook, with what the hooks before it said. If that
 * hook is gone (the chain was edited while the run waited), the whole chain runs again.
 */
export function resumeFrom(state: Dispatch, point: SuspendPoint): number {
  const index = state.hooks.findIndex((h) => h.id === point.hookId);
  if (index < 0) {
    // The chain runs again, and its limits count the call again: what it spent before goes back.
    if (point.spent?.length) state.releaseTokens(point.spent);
    return 0;
  }
  if (point.spent?.length) state.carried = [...point.spent];
  if (point.context?.length) state.contextTexts = [...point.context];
  if (point.outputs?.length) state.outputs = [...point.outputs];
  if (point.reminders?.length) state.reminders = [...point.reminders];
  if (point.toolInput) state.setInput(point.toolInput);
  if (point.toolOutput) state.setOutput(point.toolOutput.value);
  if (point.redaction) state.redaction = point.redaction;
  if (point.modifiedBy?.length) state.modifiedBy = [...point.modifiedBy];
  if (point.askUser) state.askUser = point.askUser;
  state.recordFrom = index;
  return index;
}

/**
 * Picks up a dispatch a crash cut short at a hook that had announced its side effect: the hooks
 * before it ran and are in the ledger. If that hook is gone, the whole chain runs again.
 */
export function interruptedAt(state: Dispatch, point: HookProgress): number {
  const index = resumeFrom(state, { ...point, approvalId: "" });
  if (state.hooks[index]?.id === point.hookId) state.interrupted = index;
  return index;
}

/** Nobody waits for the approval any more: its hook's row says so, and the chain ends there. */
export function abandonAt(state: Dispatch, index: number, point: SuspendPoint, why: string, sink: HookRuntimeOptions["ledger"]): DispatchResult {
  const hook = state.hooks[index];
  const entry = newEntry(hook, state.event, state.startedAt);
  state.ledger[index] = entry;
  entry.matched = true;
  state.markAbandoned(hook, entry, { suspend: { approvalId: point.approvalId, abandoned: why } });
  for (let i = index + 1; i < state.hooks.length; i++) {
    const rest = newEntry(state.hooks[i], state.event, state.startedAt);
    rest.reason = state.stopped;
    state.ledger[i] = rest;
  }
  return state.finish(sink);
}

/** The kill switch is on: every hook from `from` is recorded as not run. */
export function killAll(state: Dispatch, sink: HookRuntimeOptions["ledger"], from = 0): DispatchResult {
  for (let i = from; i < state.hooks.length; i++) {
    const entry = newEntry(state.hooks[i], state.event, state.startedAt);
    entry.reason = "kill switch: every hook is disabled";
    state.ledger[i] = entry;
  }
  return state.finish(sink);
}
