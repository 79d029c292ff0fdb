/**
 * Background work a web process runs beside the dashboard (the run queue and schedules arrive
 * with the runs issue). Stopping drains it before the database closes.
 */
import type { DbHandle } from "@/db/client";
import type { StreamHub } from "@/lib/stream/hub";

export interface Background {
  stop(): Promise<void>;
}

export async function startBackground(_handle: DbHandle, _hub: StreamHub): Promise<Background> {
  return { stop: async () => {} };
}
