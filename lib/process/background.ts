/**
 * The work a process runs beside what it serves: the price table seed, code execution's
 * preparation, the operator's code hooks, the run work (lib/process/run-work.ts) and the
 * hash-chain sealer (a web process writes audit rows even when it works no runs). A web process
 * works runs unless HOOKPLANE_WORKER_CONCURRENCY=0 and installs its queue for the route handlers;
 * a worker always works at least one. Stopping drains it before the database closes.
 */
import { detectorsReady } from "@/lib/core/detectors/registry";
import type { DbHandle } from "@/db/client";
import { seedPricesIfEmpty } from "@/db/queries/prices";
import { deleteExpiredSessions } from "@/db/queries/sessions";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { startChainSealer } from "@/lib/features/audit/chain-sealer";
import { PUBLISHED_PRICES } from "@/lib/features/costs/published-prices";
import { loadOperatorCodeHooks } from "@/lib/features/hooks/operator-code-hooks";
import { settleRateLimitLeases } from "@/lib/features/hooks/rate-limit-leases";
import { installRunQueue } from "@/lib/features/runs/queue/run-queue-registry";
import { getConfig } from "@/lib/platform/config/config";
import { logger } from "@/lib/platform/logger";
import { prepareCodeExecution } from "@/lib/platform/security/code-execution";
import { startRunWork } from "./run-work";

export interface Background {
  /** Runs this process works at once. */
  readonly concurrency: number;
  stop(): Promise<void>;
}

export function workerConcurrency(): number {
  return getConfig().HOOKPLANE_WORKER_CONCURRENCY;
}

export async function startBackground(handle: DbHandle, role: "web" | "worker"): Promise<Background> {
  await seedPricesIfEmpty(handle.db, { projectId: DEFAULT_PROJECT_ID, prices: PUBLISHED_PRICES });
  prepareCodeExecution(logger);
  await loadOperatorCodeHooks();
  await detectorsReady();
  if (role === "web") await deleteExpiredSessions(handle.db);
  const concurrency = role === "web" ? workerConcurrency() : Math.max(1, workerConcurrency());
  const queue = await startRunWork(handle, { concurrency });
  if (role === "web") installRunQueue(queue);
  const sealer = startChainSealer(handle.db);
  return {
    concurrency,
    async stop() {
      await queue.stop();
      if (role === "web") installRunQueue(undefined);
      await sealer.stop();
      // Tokens this process holds and will not spend: returned, so other processes need not wait for them.
      await settleRateLimitLeases(handle.db);
    },
  };
}
