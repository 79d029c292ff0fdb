/**
 * `npm run worker` / `hookplane worker`: a process that only works runs (PostgreSQL), with
 * HOOKPLANE_WORKER_CONCURRENCY runs at once. Start as many as you like, on any machine.
 */
import { configOrExit, configWarnings } from "@/lib/platform/config/config";
import { closeDatabase, getDatabase } from "@/db/client";
import { seedPricesIfEmpty } from "@/db/queries/prices";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { startChainSealer } from "@/lib/features/audit/chain-sealer";
import { PUBLISHED_PRICES } from "@/lib/features/costs/published-prices";
import { logger } from "@/lib/platform/logger";
import { startMetricsListener } from "@/lib/platform/metrics/metrics-listener";
import { setMetricsProcess } from "@/lib/platform/metrics/metrics-registry";
import { loadOperatorCodeHooks } from "@/lib/features/runs/operator-code-hooks";
import { prepareCodeExecution } from "@/lib/platform/security/code-execution";
import { otelConfigOf } from "@/lib/platform/telemetry/otel-config";
import { startTraceExport, stopTraceExport } from "@/lib/platform/telemetry/trace-export";
import { workerConcurrency } from "@/lib/features/runs/background";
import { startRunQueue } from "./run-queue";

async function main() {
  const config = configOrExit();
  setMetricsProcess("worker");
  for (const warning of configWarnings(config)) logger.warn(warning);
  startTraceExport(otelConfigOf(config), logger);
  const handle = await getDatabase();
  if (handle.kind === "pglite") {
    logger.error("a separate worker needs DATABASE_URL (PostgreSQL); the embedded server works its own runs");
    process.exit(1);
  }
  await seedPricesIfEmpty(handle.db, { projectId: DEFAULT_PROJECT_ID, prices: PUBLISHED_PRICES });
  prepareCodeExecution(logger);
  await loadOperatorCodeHooks();
  const concurrency = Math.max(1, workerConcurrency());
  const queue = await startRunQueue(handle, { concurrency });
  const sealer = startChainSealer(handle.db);
  const { HOOKPLANE_METRICS_PORT: metricsPort, HOOKPLANE_METRICS_TOKEN: metricsToken } = config;
  const metrics = metricsPort && metricsToken ? await startMetricsListener(handle, { port: metricsPort, host: config.HOSTNAME, token: metricsToken }) : undefined;
  logger.info({ concurrency, pid: process.pid, metricsPort }, "worker started");
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, "worker stopping");
    metrics?.close();
    await queue.stop();
    await sealer.stop();
    await stopTraceExport();
    await closeDatabase();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error) => {
  logger.error({ err: error }, "worker failed to start");
  process.exit(1);
});
