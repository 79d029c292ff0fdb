/**
 * Whether a stored hook can do what it says where it runs (issue 28): a hook that cannot run on this
 * server (code execution off, a secret it names missing, a stored spec that no longer compiles)
 * either fails closed (blocks every call it matches) or, with `onFailure: continue` and on events
 * that cannot block, does nothing while the list shows it "enabled". The hook list, the agent's
 * chain and the import preview show both, in red, with why, so nobody takes a guard that never runs
 * for one that does. Pure: the caller says what the server allows and which secrets exist.
 */
import { compileHook } from "./compiled-hooks";
import type { RuntimeHook } from "./runtime-types";
import { runsOnAgentMachine } from "./runs-on";
import { CODE_EXECUTION_OFF } from "./trust";

export interface EnforcementContext {
  codeExecution: boolean;
  /** The secret names a hook of this project can resolve (its store and HOOKPLANE_SECRET_<NAME>). */
  secrets: ReadonlySet<string>;
}

export type Enforcement =
  | { state: "enforced" }
  /** Off on purpose: disabled, or shadow (records, never blocks). */
  | { state: "off"; why: string }
  /** It cannot run here: every call it matches is refused (a gate failing closed). */
  | { state: "fails_closed"; why: string }
  /** It cannot run here and lets everything through: shown as not enforced. */
  | { state: "not_enforced"; why: string }
  /** It runs on the machine the agent runs on, from the settings `hookplane install` writes (runs-on.ts). */
  | { state: "on_agent"; why: string };

export function enforcementOf(hook: RuntimeHook, context: EnforcementContext): Enforcement {
  if (hook.enabled === false) return { state: "off", why: "disabled" };
  if (runsOnAgentMachine(hook)) {
    if (hook.mode === "shadow") return { state: "off", why: "shadow: it is not written into the installed settings" };
    return { state: "on_agent", why: "runs on each developer's machine, where the coding agent runs it from the settings `hookplane install` writes (in the project folder, with the agent's payload), and reports its outcome to the run; the agent's page lists the machines that installed it and those that drifted" };
  }
  const compiled = compileHook(hook);
  const problem =
    compiled.compileError ??
    (compiled.runsCode && !context.codeExecution ? CODE_EXECUTION_OFF : undefined) ??
    missingSecrets(compiled.action?.secretNames ?? [], context.secrets);
  if (problem === undefined) return compiled.shadow ? { state: "off", why: "shadow: it records what it would do and never blocks" } : { state: "enforced" };
  if (compiled.shadow) return { state: "off", why: `shadow, and it could not run here: ${problem}` };
  return compiled.failureBlocks
    ? { state: "fails_closed", why: `it cannot run here (${problem}), so every call it matches is refused` }
    : { state: "not_enforced", why: `it cannot run here (${problem}) and its onFailure lets the call through: it decides nothing` };
}

function missingSecrets(names: readonly string[], known: ReadonlySet<string>): string | undefined {
  const missing = names.filter((name) => !known.has(name));
  return missing.length === 0 ? undefined : `the secret${missing.length > 1 ? "s" : ""} ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} not set`;
}
