/**
 * The process's one approval waiter for requests that hold an HTTP call open while a person
 * decides (the Claude Code bridge): one LISTEN connection per process however many sessions
 * wait, kept on globalThis so Next's bundled route handlers share it, like the run queue.
 */
import type { DbHandle } from "@/db/client";
import { startApprovalWaiter, type ApprovalWaiter } from "./approval-waiter";

const KEY = Symbol.for("hookplane.approvalWaiter");
type Entry = { handle: DbHandle; waiter: Promise<ApprovalWaiter> };
type GlobalWithWaiter = typeof globalThis & { [KEY]?: Entry };

/** The waiter listening on `handle`; a new database handle (tests) gets a new waiter. */
export function processApprovalWaiter(handle: DbHandle): Promise<ApprovalWaiter> {
  const g = globalThis as GlobalWithWaiter;
  const current = g[KEY];
  if (current?.handle === handle) return current.waiter;
  if (current) void current.waiter.then((w) => w.stop()).catch(() => {});
  const entry: Entry = { handle, waiter: startApprovalWaiter(handle) };
  entry.waiter.catch(() => {
    if (g[KEY] === entry) delete g[KEY];
  });
  g[KEY] = entry;
  return entry.waiter;
}

export async function stopProcessApprovalWaiter(): Promise<void> {
  const g = globalThis as GlobalWithWaiter;
  const current = g[KEY];
  delete g[KEY];
  if (current) await (await current.waiter).stop();
}
