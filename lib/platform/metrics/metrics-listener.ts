/**
 * A worker's own /metrics (HOOKPLANE_METRICS_PORT): a worker serves no HTTP otherwise, and its
 * counters live in its process, so Prometheus scrapes each worker as it scrapes the web process.
 * Only the metrics token opens it (no database lookups on this port); the cluster's gauges are
 * the web process's to serve.
 */
import { createServer, type Server } from "node:http";
import type { DbHandle } from "@/db/client";
import { logger } from "@/lib/platform/logger";
import { presentsMetricsToken } from "./metrics-access";
import { scrapeMetrics } from "./metrics-scrape";

export function startMetricsListener(handle: DbHandle, options: { port: number; host: string; token: string }): Promise<Server> {
  const server = createServer((req, res) => {
    const headers = { get: (name: string) => (req.headers[name.toLowerCase()] as string | undefined) ?? null };
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics") return void res.writeHead(404).end();
    if (req.method !== "GET") return void res.writeHead(405, { allow: "GET" }).end();
    if (!presentsMetricsToken(headers, options.token)) return void res.writeHead(401, { "www-authenticate": "Bearer" }).end();
    scrapeMetrics(handle).then(
      ({ contentType, body }) => res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" }).end(body),
      (error) => {
        logger.error({ err: error }, "metrics scrape failed");
        res.writeHead(500).end();
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve(server));
  });
}
