/**
 * Hookplane's process: Next (dashboard + API) and the WebSocket stream hub on one port.
 * Every request passes the web edge first (security headers, client address, server-action
 * Origin, paths that cannot be decoded); a hook call is then served directly, and any other
 * request passes lib/platform/api/request-guard.ts (methods, body cap) on its way to Next;
 * every upgrade passes the stream endpoint, which hands Next only its dev HMR socket and refuses
 * the rest.
 * SIGTERM/SIGINT: stop accepting, let in-flight requests finish, then close the database.
 * Boot, background work and shutdown are assembled in lib/process, as for the worker (worker.ts).
 */
import { EventEmitter } from "node:events";
import { createServer, type Server } from "node:http";
import next from "next";
import nextConfig from "./next.config";
import { getApprovalInAnyProject } from "@/db/queries/approvals";
import { getRunInAnyProject, runToApi } from "@/db/queries/runs";
import { seedDemoData } from "@/lib/features/agents/demo/seed-demo";
import { MAX_BODY_BYTES } from "@/lib/platform/api/route";
import { guardPathEncoding, guardRequest, refuseUpgrade } from "@/lib/platform/api/request-guard";
import { logger } from "@/lib/platform/logger";
import { guardWebRequest, webEdgeOptions } from "@/lib/platform/security/web-edge";
import { PROJECT_HEADER } from "@/lib/platform/auth/project-access";
import { REQUEST_PATH_HEADER } from "@/lib/platform/auth/request-path";
import { projectPathRewrite } from "@/lib/platform/auth/project-slug";
import { StreamHub } from "@/lib/platform/stream/hub";
import { attachWebSocketEndpoint } from "@/lib/platform/stream/ws-endpoint";
import { serveIngestDirectly } from "@/lib/features/bridge/ingest-direct";
import { startBackground } from "@/lib/process/background";
import { useBuiltNextConfig } from "@/lib/process/next-built-config";
import { bootProcess, runProcess } from "@/lib/process/boot";
import { onShutdownSignals } from "@/lib/process/shutdown";

const dev = process.argv.includes("--dev");
const SHUTDOWN_GRACE_MS = 10_000;

async function main() {
  // A bad value stops the start here, naming the variable (lib/platform/config).
  const { config, handle } = await bootProcess("web");
  const { PORT: port, HOSTNAME: hostname } = config;
  if (await seedDemoData(handle.db)) logger.info("seeded the demo agents");

  // Next attaches its own upgrade listener to the server it serves; given this stand-in instead,
  // it sees only the upgrades we pass on (dev HMR), never a stranger's.
  const nextUpgrades = new EventEmitter();
  // Not SWC's 24 MB for a config the build already holds (lib/process/next-built-config.ts).
  if (!dev) useBuiltNextConfig(process.cwd(), nextConfig.distDir);
  const app = next({ dev, hostname, port, httpServer: nextUpgrades as unknown as Server });
  await app.prepare();
  const handleRequest = app.getRequestHandler();

  // Rows of any project, each with its projectId: the hub sends a row to that project's sockets only.
  const hub = new StreamHub(handle, {
    readRun: async (runId) => {
      const run = await getRunInAnyProject(handle.db, { id: runId });
      return run ? { ...runToApi(run), projectId: run.projectId } : undefined;
    },
    readApproval: (approvalId) => getApprovalInAnyProject(handle.db, { id: approvalId }),
  });
  const background = await startBackground(handle, "web");
  await hub.start();

  const edge = webEdgeOptions(config, dev);
  let inFlight = 0;
  const server = createServer(
    {
      // Slow or stalled clients cannot hold a socket: headers within 15 s, the whole request
      // (body included) within 60 s. A response may take longer (a held approval), so no idle
      // timeout on the socket itself; TCP keep-alive finds peers that vanished meanwhile.
      headersTimeout: 15_000,
      requestTimeout: 60_000,
      // An idle connection is kept 65 s (nginx keeps 75), not Node's 5: a client that pools
      // connections without reading the server's Keep-Alive hint (Playwright's request context,
      // node:http's Agent, Python's requests) and sends on one just as the server closes it gets
      // ECONNRESET for a request the server never saw (an e2e spec idle 5 s between two API calls;
      // bench:ingest's sessions calling every 2 s).
      keepAliveTimeout: 65_000,
      keepAlive: true,
      keepAliveInitialDelay: 30_000,
    },
    (req, res) => {
      inFlight++;
      res.on("close", () => inFlight--);
      if (!guardWebRequest(req, res, edge) || !guardPathEncoding(req, res)) return;
      // What a page was asked for, for its sign-in redirect's `next` (request-path.ts); never a client's say.
      req.headers[REQUEST_PATH_HEADER] = req.url ?? "/";
      // `/api/v1/projects/<slug>/<rest>` is `/api/v1/<rest>` acting in <slug> (project-access.ts).
      const inProject = req.url ? projectPathRewrite(req.url) : undefined;
      if (inProject) {
        req.url = inProject.url;
        req.headers[PROJECT_HEADER] = inProject.project;
      }
      // A bridged agent's hook call takes the short way (lib/features/bridge/ingest-direct.ts): a
      // POST whose body the direct path counts itself, with the request guard's cap and 413.
      if (serveIngestDirectly(req, res)) return;
      guardRequest(req, res, { maxBodyBytes: MAX_BODY_BYTES })
        .then((pass) => (pass ? handleRequest(req, res) : undefined))
        .catch((error) => {
          logger.error({ err: error }, "request failed");
          if (!res.headersSent) res.writeHead(500).end();
        });
    },
  );

  // CONNECT (a proxy tunnel) is not ours to serve; without a listener Node would just drop it.
  server.on("connect", (_req, socket) => refuseUpgrade(socket, 405, "CONNECT is not supported"));

  const isNextHmr = (url: string | undefined) => dev && /^\/_next\/(webpack-)?hmr(\?|\/|$)/.test(url ?? "");
  const wss = attachWebSocketEndpoint(server, handle, hub, {
    passThrough: (req, socket, head) => isNextHmr(req.url) && nextUpgrades.emit("upgrade", req, socket, head),
  });

  // A port already taken ends the start with a reason. Without this the error reaches Next's
  // uncaughtException handler, which logs it and leaves a process that serves nothing running.
  await new Promise<void>((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) =>
      reject(error.code === "EADDRINUSE" ? new Error(`${hostname}:${port} is already in use: stop what listens there, or set PORT to a free port`, { cause: error }) : error);
    server.once("error", refused);
    server.listen(port, hostname, () => {
      // Only the start's own error ends it: a later one is not swallowed by this listener.
      server.off("error", refused);
      resolve();
    });
  });
  logger.info({ url: `http://${hostname}:${port}`, db: handle.kind, dev }, "Hookplane is listening");

  onShutdownSignals(async (signal) => {
    logger.info({ signal }, "shutting down");
    const deadline = Date.now() + SHUTDOWN_GRACE_MS;
    server.close();
    server.closeIdleConnections();
    await hub.stop();
    wss.close();
    while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    server.closeAllConnections();
    await background.stop();
  }, "closed");
}

runProcess(main, "failed to start");
