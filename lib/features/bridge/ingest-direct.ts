/**
 * The hook calls of bridged coding agents, served by server.ts straight from node:http instead of
 * through Next's router: every tool call of every bridged session waits on this answer, and Next's
 * per-request work (routing, its request and response adapters) was most of a call's time. The
 * handlers are the very ones Next serves (ingest-routes.ts), with the same checks (apiRoute); the
 * web edge has run before (server.ts), and the body is read once, counted against the request
 * guard's cap with its 413 (route-server.ts), not held by the guard and then read again.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { serveWithHandler } from "@/lib/platform/api/route-server";
import { logger } from "@/lib/platform/logger";
import { INGEST_ROUTES } from "./ingest-routes";

const PREFIX = "/api/v1/ingest/";

/** The handler of a POST to an ingest endpoint (query string allowed), or undefined for any other request. */
function ingestHandler(req: IncomingMessage) {
  if (req.method !== "POST" || !req.url?.startsWith(PREFIX)) return undefined;
  const end = req.url.indexOf("?");
  const name = req.url.slice(PREFIX.length, end === -1 ? undefined : end);
  return Object.hasOwn(INGEST_ROUTES, name) ? INGEST_ROUTES[name as keyof typeof INGEST_ROUTES] : undefined;
}

/** Serves the request when it is a hook call (true), or leaves it to Next (false). */
export function serveIngestDirectly(req: IncomingMessage, res: ServerResponse): boolean {
  const handler = ingestHandler(req);
  if (!handler) return false;
  serveWithHandler(handler, req, res).catch((error) => {
    // The handler answers every error itself (apiRoute); this is the body's stream failing (the client left).
    logger.debug({ err: error }, "hook call ended before it was answered");
    if (!res.headersSent) res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "bad_request", message: "The request body could not be read" } }));
    else res.destroy();
  });
  return true;
}
