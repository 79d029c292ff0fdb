/**
 * How the loop's steps unwind: an interruption (the worker stops; the run resumes elsewhere), a
 * failure of the model or a tool (the run's failure), and a suspension (a hook waits for a person).
 */
import type { EventName } from "@/lib/core/hooks/events";

/**
 * Stops the loop without ending the run: the worker is shutting down or lost its lease, and the
 * run will be resumed from its checkpoint elsewhere. Abort the signal with it as the reason (or
 * throw it from a port); no session.end fires, and an interrupted tool call is reported as
 * interrupted on resume (or runs again, when it is safe to retry).
 */
export class LoopInterrupted extends Error {
  /**
   * A graceful stop: the step in flight (a tool call) may finish and be recorded; only when
   * `hardStop` aborts (the grace period ran out) is it cut short. Without it, at once.
   */
  readonly hardStop?: AbortSignal;

  constructor(message = "the agent loop was interrupted; resume it from its checkpoint", options: { hardStop?: AbortSignal } = {}) {
    super(message);
    this.name = "LoopInterrupted";
    this.hardStop = options.hardStop;
  }
}

/** Wraps an error of the provider or a tool, so it is told apart from a recording port's error. */
export class StepFailure extends Error {
  constructor(readonly original: unknown) {
    super(original instanceof Error ? original.message : String(original));
    this.name = "StepFailure";
  }
}

/** Unwinds the loop to its top when a dispatch suspended; never leaves runAgentSession. */
export class Suspension {
  constructor(readonly waitingOn: { event: EventName; approvalId: string; hookId: string }) {}
}

/** Runs a step of the model or a tool: what it throws is the run's failure, not the worker's. */
export async function step<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw new StepFailure(err);
  }
}
