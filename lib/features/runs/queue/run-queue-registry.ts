/**
 * The process's run queue, shared by server.ts (which starts it) and the bundled route handlers
 * and server actions (which enqueue and cancel through it).
 */
import type { RunQueue } from "./run-queue";

const KEY = Symbol.for("hookplane.runQueue");
type GlobalWithQueue = typeof globalThis & { [KEY]?: RunQueue };

export function installRunQueue(queue: RunQueue | undefined): void {
  (globalThis as GlobalWithQueue)[KEY] = queue;
}

export function getRunQueue(): RunQueue {
  const queue = (globalThis as GlobalWithQueue)[KEY];
  if (!queue) throw new Error("the run queue is not started in this process");
  return queue;
}
