/**
 * Hooks are compiled once: regexes, globs, `when` conditions, templates and executors are built per
 * hook object (cached by identity), and a hook list is indexed by event (cached by the array's
 * identity), so a dispatch with no hook bound to its event is one map lookup. Treat hook objects and
 * arrays as immutable: to change one, pass a new one.
 */
import { isBlockingEvent, type EventName } from "./events";
import { compileAction } from "./executors";
import type { CompiledAction } from "./executors/types";
import { compileMatcher, type NameMatcher } from "./matcher";
import type { RuntimeHook } from "./runtime-types";
import { GATING_ACTIONS, type HookActionType } from "./spec";
import { actionRunsCode } from "./trust";
import { detectInContext } from "../detectors/when-detect";
import { compileWhen, type WhenCondition } from "./when";

export interface CompiledHook {
  readonly spec: RuntimeHook;
  readonly id: string;
  readonly version: number | undefined;
  readonly event: EventName;
  readonly scope: string;
  readonly actionType: HookActionType;
  readonly enabled: boolean;
  readonly shadow: boolean;
  /**
   * `agent:<x>` / `schedule:<x>` applies only to that agent or schedule; `group:<x>` to the calls of
   * people in that single sign-on group, `person:<user id>` to one person's calls.
   */
  readonly scopeTarget: { kind: ScopeTargetKind; id: string } | undefined;
  /** A person's rule an admin marked as an exception (spec.ts): it waives broader blocks and approvals. */
  readonly exception: boolean;
  readonly matcher: NameMatcher | undefined;
  readonly when: WhenCondition | undefined;
  readonly outcomes: ReadonlySet<string> | undefined;
  readonly action: CompiledAction | undefined;
  /** Why the hook cannot run (a bad regex in a stored hook); it then fails under onFailure. */
  readonly compileError: string | undefined;
  readonly failureBlocks: boolean;
  /** Runs a process or loads code (trust.ts): only behind the operator's switch. */
  readonly runsCode: boolean;
}

export interface CompiledHookSet {
  readonly byEvent: ReadonlyMap<EventName, readonly CompiledHook[]>;
}

/**
 * Execution order and precedence: the instance's and the project's global hooks, then a group's,
 * then a person's, then an agent's, then a schedule's (Tailored AI appends job hooks after profile
 * hooks). Deny wins whatever the order: the first block ends the chain, unless a person's rule
 * marked as an exception matches the call (runtime.ts).
 */
const SCOPE_RANK = { global: 0, group: 1, person: 2, agent: 3, schedule: 4 } as const;
type ScopeTargetKind = "agent" | "schedule" | "group" | "person";
const TARGET_KINDS: ReadonlySet<string> = new Set<ScopeTargetKind>(["agent", "schedule", "group", "person"]);

const hookCache = new WeakMap<RuntimeHook, CompiledHook>();
const setCache = new WeakMap<readonly RuntimeHook[], CompiledHookSet>();

export function compileHooks(hooks: readonly RuntimeHook[]): CompiledHookSet {
  const cached = setCache.get(hooks);
  if (cached) return cached;
  const byEvent = new Map<EventName, CompiledHook[]>();
  for (const hook of hooks) {
    const compiled = compileHook(hook);
    const list = byEvent.get(compiled.event);
    if (list) list.push(compiled);
    else byEvent.set(compiled.event, [compiled]);
  }
  // Scope order: global, then agent, then schedule (Tailored AI appends job hooks after profile
  // hooks); within a scope, the given order. Array sort is stable.
  for (const list of byEvent.values()) list.sort((a, b) => scopeRank(a.scope) - scopeRank(b.scope));
  const set = { byEvent };
  setCache.set(hooks, set);
  return set;
}

export function compileHook(hook: RuntimeHook): CompiledHook {
  const cached = hookCache.get(hook);
  if (cached) return cached;
  let compileError: string | undefined;
  const attempt = <T>(what: string, build: () => T): T | undefined => {
    try {
      return build();
    } catch (error) {
      compileError ??= `invalid ${what}: ${(error as Error).message}`;
      return undefined;
    }
  };
  const actionType = hook.action?.type;
  const scope = hook.scope ?? "global";
  const colon = scope.indexOf(":");
  const kind = colon > 0 ? scope.slice(0, colon) : scope;
  const matcher = hook.matcher ? attempt("matcher", () => compileMatcher(hook.matcher)) : undefined;
  const when = hook.when ? attempt("when", () => compileWhen(hook.when!, { detect: detectInContext })) : undefined;
  const action = attempt("action", () => compileAction(hook.action, hook.timeoutMs));
  if (actionType === "approve" && !isBlockingEvent(hook.event)) {
    compileError ??= `approve can only pause a blocking event, not ${hook.event}`;
  }
  const compiled: CompiledHook = Object.freeze({
    spec: hook,
    id: hook.id,
    version: hook.version,
    event: hook.event,
    scope,
    actionType,
    enabled: hook.enabled !== false,
    shadow: hook.mode === "shadow",
    scopeTarget: TARGET_KINDS.has(kind) ? { kind: kind as ScopeTargetKind, id: scope.slice(colon + 1) } : undefined,
    exception: hook.exception === true,
    matcher,
    when,
    outcomes: hook.onOutcomes ? new Set<string>(hook.onOutcomes) : undefined,
    action,
    compileError,
    failureBlocks:
      hook.onFailure !== undefined ? hook.onFailure === "block" : GATING_ACTIONS.has(actionType) && isBlockingEvent(hook.event),
    runsCode: hook.action ? actionRunsCode(hook.action) : false,
  });
  hookCache.set(hook, compiled);
  return compiled;
}

function scopeRank(scope: string): number {
  const kind = scope.split(":", 1)[0] as keyof typeof SCOPE_RANK;
  return SCOPE_RANK[kind] ?? SCOPE_RANK.agent;
}
