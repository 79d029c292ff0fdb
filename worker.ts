/**
 * `npm run worker` / `hookplane worker`: a process that only works runs (PostgreSQL), with
 * HOOKPLANE_WORKER_CONCURRENCY runs at once. Start as many as you like, on any machine. Assembled
 * in lib/process like the web process (server.ts): boot, background work, shutdown.
 */
import { logger } from "@/lib/platform/logger";
import { startMetricsListener } from "@/lib/platform/metrics/metrics-listener";
import { startBackground } from "@/lib/process/background";
import { bootProcess, runProcess } from "@/lib/process/boot";
import { onShutdownSignals } from "@/lib/process/shutdown";

async function main() {
  const { config, handle } = await bootProcess("worker");
  if (handle.kind === "pglite") {
    logger.error("a separate worker needs DATABASE_URL (PostgreSQL); the embedded server works its own runs");
    process.exit(1);
  }
  const background = await startBackground(handle, "worker");
  const { HOOKPLANE_METRICS_PORT: metricsPort, HOOKPLANE_METRICS_TOKEN: metricsToken } = config;
  const metrics = metricsPort && metricsToken ? await startMetricsListener(handle, { port: metricsPort, host: config.HOSTNAME, token: metricsToken }) : undefined;
  logger.info({ concurrency: background.concurrency, pid: process.pid, metricsPort }, "worker started");
  onShutdownSignals(async (signal) => {
    logger.info({ signal }, "worker stopping");
    metrics?.close();
    await background.stop();
  });
}

runProcess(main, "worker failed to start");
