/**
 * Seals the audit log and the hook ledger shortly after rows are appended (db/queries/hash-chain.ts
 * says why writers do not hash). Every web and worker process runs one; they share the work through
 * a try-lock, so with several processes one seals and the others skip that tick. A tick seals up
 * to the horizon the tick before looked at (hash-chain.ts), so a row waits about two intervals
 * unsealed (verification reports such rows and seals before it checks).
 */
import type { Db } from "@/db/client";
import { CHAINED_TABLES, sealChain } from "@/db/queries/hash-chain";
import { logger } from "@/lib/platform/logger";
import { getMetrics } from "@/lib/platform/metrics/metrics-registry";

export const CHAIN_SEAL_INTERVAL_MS = 1_000;

export interface ChainSealer {
  /** Stops the timer and waits for a seal in progress, so the database can close after it. */
  stop(): Promise<void>;
}

export function startChainSealer(db: Db, options: { intervalMs?: number } = {}): ChainSealer {
  let running: Promise<void> | undefined;
  const metrics = getMetrics();
  const tick = async () => {
    for (const table of CHAINED_TABLES) {
      try {
        const started = performance.now();
        const { sealed } = await sealChain(db, { table, skipIfBusy: true });
        // What the chain costs as it runs (rows, and how long each seal takes), for operators and bench:ingest-people.
        if (sealed > 0) {
          metrics.chainRowsSealed.inc({ table }, sealed);
          metrics.chainSealDuration.observe({ table }, (performance.now() - started) / 1000);
        }
      } catch (error) {
        logger.warn({ err: error, table }, "sealing the hash chain failed; the next tick retries");
      }
    }
  };
  const timer = setInterval(() => {
    if (!running) running = tick().finally(() => (running = undefined));
  }, options.intervalMs ?? CHAIN_SEAL_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
