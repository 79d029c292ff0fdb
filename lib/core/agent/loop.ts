/**
 * The agent loop: prompt → model → tools → model ... with every lifecycle event of hook-model.md
 * fired around it, limits enforced, and a checkpoint after each completed step.
 *
 * Failure model:
 * - provider and tool errors are the run's failures: `error` event, then session.end `failed`;
 * - cancel and timeout end the run as `cancelled` / `timeout` (no `error` event);
 * - errors of the recording ports (emit, dispatch, checkpoint) are the worker's failures: they
 *   propagate without session.end, and a rerun with the same checkpoint resumes the run.
 *
 * Waiting is a state: when a hook waits for a person (dispatch answers `suspend`), the loop saves
 * its checkpoint and returns `suspended`; run again with that checkpoint, it continues the waiting
 * dispatch where it stopped (the event is not recorded twice). A cancel or timeout that finds the
 * run waiting abandons the wait (the hook's ledger row says so) and ends the run.
 */
import type { AgentSessionOptions, SessionResult } from "./loop-ports";
import { AgentSession } from "./agent-session";

export { INTERRUPTED_OUTPUT } from "./agent-session";
export { LoopInterrupted } from "./loop-signals";
export { REMOVED_TOOL_RESULT } from "./message-transforms";

/** Runs one agent (or a flow of agents, when `agent.flow` is set) to an outcome. */
export async function runAgentSession(opts: AgentSessionOptions): Promise<SessionResult> {
  return (await AgentSession.open(opts)).run();
}

/** A multi-agent flow (AgenTopology): `agent.flow` names run in sequence, each answer the next prompt. */
export async function runFlow(
  opts: AgentSessionOptions & { resolveAgent: NonNullable<AgentSessionOptions["resolveAgent"]> },
): Promise<SessionResult> {
  if (!opts.agent.flow || opts.agent.flow.length === 0) {
    throw new TypeError(`agent ${opts.agent.name} has no flow`);
  }
  return runAgentSession(opts);
}
