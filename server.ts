/**
 * Hookplane's process: Next (dashboard + API) and the WebSocket stream hub on one port.
 * Upgrades are handled only for /api/ws so Next's own (dev HMR) upgrades keep working. Every
 * request passes the web edge first (security headers, client address, server-action Origin).
 * SIGTERM/SIGINT: stop accepting, let in-flight requests finish, then close the database.
 */
import { createServer } from "node:http";
import next from "next";
import { closeDatabase, getDatabase } from "@/db/client";
import { getApproval } from "@/db/queries/approvals";
import { getRun, runToApi } from "@/db/queries/runs";
import { seedDemoData } from "@/lib/demo/seed-demo";
import { logger } from "@/lib/logger";
import { guardWebRequest, webEdgeOptionsFromEnv } from "@/lib/security/web-edge";
import { StreamHub } from "@/lib/stream/hub";
import { attachWebSocketEndpoint } from "@/lib/stream/ws-endpoint";
import { startBackground, type Background } from "@/lib/runtime/background";

const dev = process.argv.includes("--dev");
const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOSTNAME && process.env.HOSTNAME !== "0.0.0.0" ? process.env.HOSTNAME : "127.0.0.1";
const SHUTDOWN_GRACE_MS = 10_000;

async function main() {
  const handle = await getDatabase();
  if (await seedDemoData(handle.db)) logger.info("seeded the demo agents");

  const app = next({ dev, hostname, port });
  await app.prepare();
  const handleRequest = app.getRequestHandler();

  const hub = new StreamHub(handle, {
    readRun: async (runId) => {
      const run = await getRun(handle.db, { id: runId });
      return run ? runToApi(run) : undefined;
    },
    readApproval: (approvalId) => getApproval(handle.db, { id: approvalId }),
  });
  const background: Background = await startBackground(handle, hub);
  await hub.start();

  const edge = webEdgeOptionsFromEnv(process.env, dev);
  let inFlight = 0;
  const server = createServer((req, res) => {
    inFlight++;
    res.on("close", () => inFlight--);
    if (!guardWebRequest(req, res, edge)) return;
    handleRequest(req, res).catch((error) => {
      logger.error({ err: error }, "request failed");
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  const wss = attachWebSocketEndpoint(server, handle, hub);

  server.listen(port, hostname, () => {
    logger.info({ url: `http://${hostname}:${port}`, db: handle.kind, dev }, "Hookplane is listening");
  });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, "shutting down");
    const deadline = Date.now() + SHUTDOWN_GRACE_MS;
    server.close();
    server.closeIdleConnections();
    await hub.stop();
    wss.close();
    while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    server.closeAllConnections();
    await background.stop();
    await closeDatabase();
    logger.info("closed");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error) => {
  logger.error({ err: error }, "failed to start");
  process.exit(1);
});
