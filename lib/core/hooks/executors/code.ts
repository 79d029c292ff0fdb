/**
 * `code`: a spec hook that calls an operator-installed code hook by id, as an event hook with the
 * event context. Its return value may carry a decision, read like a command's stdout JSON.
 */
import { readHookAnswer } from "../hook-output";
import type { CodeAction } from "../spec";
import { timedAction, type CompiledAction } from "./types";

export function compileCode(action: CodeAction, timeoutMs: number): CompiledAction {
  return timedAction(timeoutMs, async (run) => {
    const hook = run.options.codeHooks?.get(action.module);
    if (!hook) return { failure: `code hook ${action.module} is not installed in the hooks folder` };
    const { event } = run;
    const ctx = { runId: event.runId, agentName: event.agentName, sessionId: event.sessionId, event: event.type };
    const execute = hook.execute as (ctx: unknown, payload: unknown) => unknown;
    const answer = readHookAnswer(await execute(ctx, run.context()));
    if (answer.verdict === "block") answer.reason ??= `blocked by code hook ${action.module}`;
    return answer;
  });
}
