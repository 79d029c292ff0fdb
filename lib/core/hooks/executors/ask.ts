/**
 * `ask`: the agent asks its own user before the call runs (Claude Code's `permissionDecision:
 * "ask"`). The hook only says so; the runtime carries it in the dispatch result, and each agent
 * applies it, or blocks the call where it cannot ask (Hookplane's own agent loop has no user).
 */
import type { AskAction } from "../spec";
import type { ActionResult, CompiledAction } from "./types";

export function compileAsk(action: AskAction): CompiledAction {
  const reason = action.reason ?? "a Hookplane hook asks you to confirm this call";
  const result: ActionResult = { verdict: "allow", reason: `asks the agent's user: ${reason}`, askUser: { reason } };
  return { secretNames: [], executor: { async: false, run: () => result } };
}
