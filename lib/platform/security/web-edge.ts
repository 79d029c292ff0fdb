/**
 * What server.ts does to every HTTP request before Next sees it: security headers on the answer,
 * the client's address for sign-in throttling, and the Origin rule for server actions (a POST to
 * a page). Route handlers under /api/ check their own writes in lib/platform/api/route.ts, where it is
 * known whether a session cookie or a token authenticates them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Config } from "@/lib/platform/config/config";
import { CLIENT_ADDRESS_HEADER, clientAddressOf } from "./client-address";
import { originVerdict } from "./same-origin";
import { securityHeaders, type SecurityHeaderOptions } from "./security-headers";

export interface WebEdgeOptions extends SecurityHeaderOptions {
  /** HOOKPLANE_TRUST_PROXY=1: take the client's address from X-Forwarded-For. */
  trustProxy: boolean;
}

export function webEdgeOptions(config: Config, dev: boolean): WebEdgeOptions {
  return { secure: config.HOOKPLANE_SECURE_COOKIES, trustProxy: config.HOOKPLANE_TRUST_PROXY, dev };
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** Pages whose answers set or show credentials (the session cookie, a first token). */
const CREDENTIAL_PAGES = new Set(["/sign-in", "/setup"]);

function headerReader(req: IncomingMessage) {
  return { get: (name: string) => (req.headers[name.toLowerCase()] as string | undefined) ?? null };
}

/**
 * Prepares the answer and refuses what must not reach Next. Returns false when it has answered
 * the request itself.
 */
export function guardWebRequest(req: IncomingMessage, res: ServerResponse, options: WebEdgeOptions): boolean {
  for (const [name, value] of securityHeaders(options)) res.setHeader(name, value);
  req.headers[CLIENT_ADDRESS_HEADER] = clientAddressOf(req.socket.remoteAddress, req.headers["x-forwarded-for"], options.trustProxy);

  const pathname = (req.url ?? "/").split("?")[0];
  if (CREDENTIAL_PAGES.has(pathname)) res.setHeader("Cache-Control", "no-store");
  const isApi = pathname === "/api" || pathname.startsWith("/api/");
  // Any other write is a server action. Next itself lets one without an Origin through (for old
  // browsers); every browser we support sends Origin on a POST, so a request without one is not
  // a page of ours.
  if (!isApi && !SAFE_METHODS.has(req.method ?? "GET")) {
    const headers = headerReader(req);
    if (headers.get("origin") === null || originVerdict(headers) !== "same") {
      res.writeHead(403, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("Cross-origin or Origin-less form post refused\n");
      return false;
    }
  }
  return true;
}
