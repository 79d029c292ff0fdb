/**
 * What server.ts checks before Next sees a request, so an unauthenticated client cannot make the
 * process hold memory, sockets or a 500:
 *
 * - a method outside HTTP's ordinary set (TRACE, CONNECT, PROPFIND...) is a 405;
 * - a body is counted as it arrives and held back from Next until it is complete: past the cap
 *   the answer is a 413 at once and the connection is closed, so a 50 MB upload costs at most
 *   the cap, never 50 MB (Next's own reader and a route's `request.text()` would buffer it all);
 * - a server action request that Next answers with a 500 is a 400: every action of ours catches
 *   its own errors and answers a form state, so a 500 there is Next refusing a body it could not
 *   decode (a malformed or truncated action payload, a bad Origin header), which is the client's
 *   fault and must not look like ours;
 * - a path with malformed percent-encoding (`%`, `%zz`, `%FF%FE`: not UTF-8, `%ED%A0%80`: a
 *   surrogate) names nothing: a 400 in api.md's shape under /api, Next's 404 page elsewhere. Next
 *   decodes a dynamic segment with decodeURIComponent and answers its URIError with a plain-text
 *   500 (issue 30).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { logger } from "@/lib/platform/logger";

export const ALLOWED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const ALLOWED = new Set<string>(ALLOWED_METHODS);

function replyJson(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** How long a refused client may keep sending (discarded) before its socket is cut. */
const LINGER_MS = 5_000;

/**
 * Answers and then closes the connection: what is left of the body is discarded, never kept. The
 * socket lingers a moment so the client reads the answer, then goes: Node would destroy it as soon
 * as the answer is written, and closing with unread input resets the connection, which can reach
 * the client before the answer does. So the socket only half-closes (FIN after the answer) and is
 * destroyed LINGER_MS later.
 */
function replyAndClose(req: IncomingMessage, res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) {
  const socket = req.socket;
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
  res.shouldKeepAlive = false;
  replyJson(res, status, code, message, { ...headers, connection: "close" });
}

/** A 413 for a body past `maxBytes`; the connection is then closed, and nothing more of the body is kept. */
export function refuseTooLarge(req: IncomingMessage, res: ServerResponse, maxBytes: number): void {
  replyAndClose(req, res, 413, "payload_too_large", `Body is larger than ${maxBytes} bytes`);
}

/** A POST that Next may treat as a server action (fetch actions carry the header; no-JS forms post multipart to a page). */
export function isServerActionRequest(req: IncomingMessage): boolean {
  if (req.method !== "POST") return false;
  if (req.headers["next-action"] !== undefined) return true;
  const type = req.headers["content-type"] ?? "";
  return !(req.url ?? "").startsWith("/api/") && /^multipart\/form-data|^application\/x-www-form-urlencoded/i.test(type);
}

/**
 * Holds the body of `req` until it is complete (resolves "complete", then Next reads it as usual)
 * or passes `maxBytes` (resolves "too_large": nothing more is kept), or the client goes away
 * ("gone"). Node's HTTP parser hands each chunk to `req.push`; intercepting it counts the bytes
 * before anything buffers them.
 */
function holdBody(req: IncomingMessage, maxBytes: number): Promise<"complete" | "too_large" | "gone"> {
  return new Promise((resolve) => {
    const push = req.push.bind(req);
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: "complete" | "too_large" | "gone") => {
      if (settled) return;
      settled = true;
      req.socket.off("close", onClose);
      resolve(outcome);
    };
    const onClose = () => settle("gone");
    req.socket.once("close", onClose);
    req.push = (chunk: unknown, encoding?: BufferEncoding) => {
      if (settled) return true; // past the cap: dropped, and the connection is being closed
      if (chunk === null) {
        req.push = push;
        for (const held of chunks) push(held);
        push(null);
        settle("complete");
        return true;
      }
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, encoding);
      size += buffer.length;
      if (size > maxBytes) {
        chunks.length = 0;
        settle("too_large");
        return true;
      }
      chunks.push(buffer);
      return true;
    };
  });
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

/**
 * Decides whether `req` may go on to Next: false when it was answered here (405, 413) or the
 * client left. Call it first thing in the server's request listener, before anything reads the body.
 */
export async function guardRequest(req: IncomingMessage, res: ServerResponse, options: { maxBodyBytes: number }): Promise<boolean> {
  if (!ALLOWED.has(req.method ?? "")) {
    // The body of such a request is never read, so the connection cannot be reused.
    replyAndClose(req, res, 405, "method_not_allowed", `${String(req.method).slice(0, 20)} is not supported`, { allow: ALLOWED_METHODS.join(", ") });
    return false;
  }
  if (isServerActionRequest(req)) turnActionFailuresIntoBadRequests(req, res);
  if (!hasBody(req) || req.complete) return true;
  if (Number(req.headers["content-length"] ?? 0) > options.maxBodyBytes) {
    refuseTooLarge(req, res, options.maxBodyBytes);
    return false;
  }
  const outcome = await holdBody(req, options.maxBodyBytes);
  if (outcome === "too_large") refuseTooLarge(req, res, options.maxBodyBytes);
  return outcome === "complete";
}

function turnActionFailuresIntoBadRequests(req: IncomingMessage, res: ServerResponse) {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    if (status === 500) {
      logger.warn({ url: req.url }, "refused a server action request Next could not decode (400)");
      status = 400;
      this.statusCode = 400;
    }
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as typeof res.writeHead;
}

/** Whether `url`'s path is valid percent-encoded UTF-8 (its query is Next's to read leniently). */
export function hasDecodablePath(url: string): boolean {
  try {
    decodeURIComponent(url.split(/[?#]/, 1)[0]);
    return true;
  } catch {
    return false;
  }
}

/** Where Next renders its not-found page (app/not-found.tsx) with a 404, for a page path that names nothing. */
const NOT_FOUND_PAGE = "/_not-found";

/**
 * Decides whether `req` may go on to Next: false when its path cannot be decoded and it was
 * answered here. A page read (GET, HEAD) goes on as a read of the not-found page instead.
 */
export function guardPathEncoding(req: IncomingMessage, res: ServerResponse): boolean {
  const url = req.url ?? "/";
  if (hasDecodablePath(url)) return true;
  if (url === "/api" || url.startsWith("/api/") || url.startsWith("/api?")) {
    replyJson(res, 400, "bad_request", "The path is not valid percent-encoded UTF-8");
    return false;
  }
  if (req.method === "GET" || req.method === "HEAD") {
    req.url = NOT_FOUND_PAGE;
    return true;
  }
  res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found\n");
  return false;
}

/** Refuses an upgrade with a plain HTTP answer and closes the socket once it is written. */
export function refuseUpgrade(socket: Duplex, status: 400 | 401 | 403 | 404 | 405, message: string): void {
  const reason = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed" }[status];
  const body = `${message}\r\n`;
  socket.on("error", () => {});
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
