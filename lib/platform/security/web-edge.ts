/**
 * What server.ts does to every HTTP request before Next sees it: security headers on the answer,
 * the client's address for sign-in throttling, and the Origin rule for server actions (a POST to
 * a page). Route handlers under /api/ check their own writes in lib/platform/api/route.ts, where it is
 * known whether a session cookie or a token authenticates them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
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
 * The security headers of these options, built once: every request (each bridged hook call among
 * them) sets the same ones, and building the policy's text anew was a share of a hook call's CPU.
 */
const headersByOptions = new WeakMap<WebEdgeOptions, [string, string][]>();
function headersOf(options: WebEdgeOptions): [string, string][] {
  let headers = headersByOptions.get(options);
  if (!headers) headersByOptions.set(options, (headers = securityHeaders(options)));
  return headers;
}

/**
 * A connection's client address, worked out on its first request: without a trusted proxy it is
 * the socket's peer, which a kept-alive connection (a bridge's many hook calls) never changes.
 */
const addressBySocket = new WeakMap<Socket, string>();
function addressOfSocket(socket: Socket): string {
  let address = addressBySocket.get(socket);
  if (address === undefined) addressBySocket.set(socket, (address = clientAddressOf(socket.remoteAddress, undefined, false)));
  return address;
}

/**
 * Prepares the answer and refuses what must not reach Next. Returns false when it has answered
 * the request itself.
 */
export function guardWebRequest(req: IncomingMessage, res: ServerResponse, options: WebEdgeOptions): boolean {
  for (const [name, value] of headersOf(options)) res.setHeader(name, value);
  req.headers[CLIENT_ADDRESS_HEADER] = options.trustProxy
    ? clientAddressOf(req.socket.remoteAddress, req.headers["x-forwarded-for"], true)
    : addressOfSocket(req.socket);

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
