/**
 * How every process starts (server.ts, worker.ts): the configuration checked before anything else
 * (a bad value ends the process naming the variable, before a database is opened), its warnings
 * logged, trace export started, then the database.
 */
import { getDatabase, type DbHandle } from "@/db/client";
import { configOrExit, configWarnings, type Config } from "@/lib/platform/config/config";
import { logger } from "@/lib/platform/logger";
import { setMetricsProcess } from "@/lib/platform/metrics/metrics-registry";
import { otelConfigOf } from "@/lib/platform/telemetry/otel-config";
import { startTraceExport } from "@/lib/platform/telemetry/trace-export";

export async function bootProcess(role: "web" | "worker"): Promise<{ config: Config; handle: DbHandle }> {
  const config = configOrExit();
  // Every metric of a worker says so (a web process keeps the default labels).
  if (role === "worker") setMetricsProcess("worker");
  for (const warning of configWarnings(config)) logger.warn(warning);
  startTraceExport(otelConfigOf(config), logger);
  const handle = await getDatabase();
  // The embedded database's thread does not come back once lost: the process ends, so whatever
  // supervises it (systemd, the container runtime, npm start in a loop) starts it again, and
  // PGlite recovers from its WAL, rather than a process that answers 503 forever.
  handle.onLost?.((error) => {
    logger.fatal({ err: error }, "the embedded database's thread stopped; exiting so the process is started again");
    process.exit(1);
  });
  return { config, handle };
}

/** Starts a process's `main`; one that fails to start logs why and exits 1. */
export function runProcess(main: () => Promise<void>, failedMessage: string): void {
  main().catch((error) => {
    logger.error({ err: error }, failedMessage);
    process.exit(1);
  });
}
