/**
 * A hook's ledger row as a dispatch starts it: every field present (one object shape for every
 * row, so the hot path stays monomorphic), filled in as the hook runs.
 */
import type { CompiledHook } from "./compiled-hooks";
import type { HookEvent } from "./event";
import type { LedgerEntry } from "./ledger";

/** A reason (a hook's, a failure's) is capped on the row like the hook's own text. */
export const REASON_CAP = 4000;

export function newEntry(hook: CompiledHook, event: HookEvent, startedAt: number): LedgerEntry {
  return {
    hookId: hook.id,
    hookVersion: hook.version,
    event: event.type,
    scope: hook.scope,
    action: hook.actionType,
    mode: hook.shadow ? "shadow" : "enforce",
    matched: false,
    verdict: undefined,
    reason: undefined,
    failed: false,
    timedOut: false,
    ignored: false,
    exitCode: undefined,
    stdout: undefined,
    stderr: undefined,
    output: undefined,
    approval: undefined,
    modification: undefined,
    startedAt,
    durationMs: 0,
  };
}
