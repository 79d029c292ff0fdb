/**
 * Background work a web process runs beside the dashboard: the run queue (working runs unless
 * HOOKPLANE_WORKER_CONCURRENCY=0), the hash-chain sealer (a web process writes audit rows even
 * when it works no runs) and the price table seed. Stopping drains it before the database closes.
 */
import type { DbHandle } from "@/db/client";
import { seedPricesIfEmpty } from "@/db/queries/prices";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { deleteExpiredSessions } from "@/db/queries/sessions";
import { startChainSealer } from "@/lib/features/audit/chain-sealer";
import { PUBLISHED_PRICES } from "@/lib/features/costs/published-prices";
import { getConfig } from "@/lib/platform/config/config";
import { logger } from "@/lib/platform/logger";
import { loadOperatorCodeHooks } from "@/lib/features/runs/operator-code-hooks";
import { prepareCodeExecution } from "@/lib/platform/security/code-execution";
import type { StreamHub } from "@/lib/platform/stream/hub";
import { startRunQueue } from "@/lib/features/runs/queue/run-queue";
import { installRunQueue } from "@/lib/features/runs/queue/run-queue-registry";

export interface Background {
  stop(): Promise<void>;
}

export function workerConcurrency(): number {
  return getConfig().HOOKPLANE_WORKER_CONCURRENCY;
}

export async function startBackground(handle: DbHandle, _hub: StreamHub): Promise<Background> {
  await seedPricesIfEmpty(handle.db, { projectId: DEFAULT_PROJECT_ID, prices: PUBLISHED_PRICES });
  prepareCodeExecution(logger);
  await loadOperatorCodeHooks();
  await deleteExpiredSessions(handle.db);
  const queue = await startRunQueue(handle, { concurrency: workerConcurrency() });
  installRunQueue(queue);
  const sealer = startChainSealer(handle.db);
  return {
    async stop() {
      await queue.stop();
      installRunQueue(undefined);
      await sealer.stop();
    },
  };
}
