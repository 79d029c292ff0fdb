/**
 * The process's run queue, shared by server.ts (which starts it) and the bundled route handlers
 * and server actions (which enqueue and cancel through it).
 */
import { installParkedRunWaker } from "@/lib/features/approvals/parked-run-waker";
import type { RunQueue } from "./run-queue";

const KEY = Symbol.for("hookplane.runQueue");
type GlobalWithQueue = typeof globalThis & { [KEY]?: RunQueue };

export function installRunQueue(queue: RunQueue | undefined): void {
  (globalThis as GlobalWithQueue)[KEY] = queue;
  // A decision wakes its parked run through this queue: approvals cannot name runs, so it is told.
  installParkedRunWaker(queue && ((runId) => queue.enqueue(runId)));
}

export function getRunQueue(): RunQueue {
  const queue = (globalThis as GlobalWithQueue)[KEY];
  if (!queue) throw new Error("the run queue is not started in this process");
  return queue;
}
