/**
 * Whether a chain's hooks may touch the run's workspace folder: a command runs in it, save_json
 * writes to it, a tool action and an operator's code hook may read or write it. A bridged session's
 * workspace is on the server while its agent works on a developer's machine, so most of its chains
 * (guards, limits, approvals, notices) never use it: the folder is made only before a chain that
 * may. Listed by what is known not to need it, so an action type added later gets its folder.
 */
import type { HookActionType } from "./hook-actions";
import type { RuntimeHook } from "./runtime-types";

const WITHOUT_WORKSPACE: ReadonlySet<HookActionType> = new Set<HookActionType>([
  "block", "approve", "allow", "modify", "ask", "context", "webhook", "slack", "discord", "log", "limit", "detect",
]);

const byChain = new WeakMap<readonly RuntimeHook[], boolean>();

/** Cached by the chain's identity (chains are cached per hooks' generation: run-hooks.ts). */
export function chainUsesWorkspace(hooks: readonly RuntimeHook[]): boolean {
  let uses = byChain.get(hooks);
  if (uses === undefined) {
    uses = hooks.some((hook) => !WITHOUT_WORKSPACE.has(hook.action.type));
    byChain.set(hooks, uses);
  }
  return uses;
}
