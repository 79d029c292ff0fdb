/** How every process stops (server.ts, worker.ts), written once. */
import { closeDatabase } from "@/db/client";
import { logger } from "@/lib/platform/logger";
import { stopTraceExport } from "@/lib/platform/telemetry/trace-export";

/**
 * SIGTERM or SIGINT runs `stop` once (what the process serves and works, drained), then the last
 * spans go out (briefly: a collector that does not answer does not hold the exit), the database
 * closes and the process exits 0.
 */
export function onShutdownSignals(stop: (signal: string) => Promise<void>, closedMessage?: string): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    await stop(signal);
    await stopTraceExport();
    await closeDatabase();
    if (closedMessage) logger.info(closedMessage);
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
