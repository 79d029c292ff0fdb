/**
 * How a decision wakes the run parked on its approval. Runs sit above approvals (a run asks, an
 * approval answers), so approvals may not call the run queue; instead runs installs "wake run X"
 * here whenever it installs its queue (runs/queue/run-queue-registry.ts), and a decision calls it.
 * Installing it beside the queue gives it the queue's lifetime exactly: a process without a queue
 * refuses the same way it did when deciding called the queue itself. It is a global slot, like the
 * queue's, because server.ts (which starts the queue) and the bundled route handlers and server
 * actions (which decide) load separate copies of this module.
 */
export type ParkedRunWaker = (runId: string) => Promise<void>;

const KEY = Symbol.for("hookplane.parkedRunWaker");
type GlobalWithWaker = typeof globalThis & { [KEY]?: ParkedRunWaker };

export function installParkedRunWaker(waker: ParkedRunWaker | undefined): void {
  (globalThis as GlobalWithWaker)[KEY] = waker;
}

/** Hands the run back to the queue, which resumes it where it parked. */
export async function wakeParkedRun(runId: string): Promise<void> {
  const waker = (globalThis as GlobalWithWaker)[KEY];
  if (!waker) throw new Error("the run queue is not started in this process");
  await waker(runId);
}
