/**
 * Serves route handlers over real HTTP from node:http, without Next: server.ts's direct ingest
 * path (the hook calls of bridged coding agents), and tests and benchmarks that need a real
 * client (the `hookplane` CLI) to talk to the real handlers. A request's signal aborts when the
 * client goes away, as under Next, so held requests (approvals) notice.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { hasDecodablePath, refuseTooLarge } from "./request-guard";
import { MAX_BODY_BYTES, requestWithBody, toErrorResponse, type RouteAnswer } from "./route";

type Handler = ((request: Request, context?: { params?: Promise<Record<string, string>> }) => Promise<Response>) & {
  /** apiRoute's answer without a web Response, when the handler is one of its routes. */
  answer?: (request: Request, context?: { params?: Promise<Record<string, string>> }) => Promise<RouteAnswer>;
};

export interface RouteEntry {
  method: string;
  /** `/api/v1/approvals/:id/decision`: `:name` segments become params. */
  path: string;
  handler: Handler;
}

export interface RouteServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

function matchPath(pattern: string, pathname: string): Record<string, string> | undefined {
  const want = pattern.split("/");
  const got = pathname.split("/");
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    if (part.startsWith(":")) params[part.slice(1)] = decodeURIComponent(got[i]);
    else if (part !== got[i]) return undefined;
  }
  return params;
}

/** A body that went past the cap while it was read: nothing more of it is kept. */
class BodyTooLarge extends Error {}

/**
 * The request's body, whole: by the stream's events rather than an async iterator, whose promise
 * per chunk (each with Next's async hooks) was 2% of a hook call's CPU; a hook call's body is
 * one chunk, kept as it is. Counted as it arrives: past `maxBytes` it rejects with BodyTooLarge
 * and what follows is dropped unread (no listener keeps it). Rejects too when the body cannot
 * end: the stream failed (a client that leaves mid-body: "aborted"), or it closed first.
 */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  if (req.method === "GET" || req.method === "HEAD") return Promise.resolve(undefined);
  // Events already past fire no more: an ended stream has nothing left, a destroyed one never ends.
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(new Error("the request closed before its body ended"));
  return new Promise((resolve, reject) => {
    let first: Buffer | undefined;
    let chunks: Buffer[] | undefined;
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        first = chunks = undefined;
        return onError(new BodyTooLarge());
      }
      if (first === undefined) first = chunk;
      else (chunks ??= [first]).push(chunk);
    };
    const done = () => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    };
    const onEnd = () => {
      done();
      resolve(chunks ? Buffer.concat(chunks) : (first ?? Buffer.alloc(0)));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => onError(new Error("the request closed before its body ended"));
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

/**
 * Serves one request with a web handler: node's request in as a web Request, the Response back
 * out. The body, read here whole (a 413 past MAX_BODY_BYTES, as the request guard answers it
 * before Next), rides beside the Request rather than in a stream of it, and an apiRoute's JSON
 * answer is written straight out, not through a Response (route.ts, bufferedBodies).
 */
export async function serveWithHandler(handler: Handler, req: IncomingMessage, res: ServerResponse, params: Record<string, string> = {}): Promise<void> {
  if (Number(req.headers["content-length"] ?? 0) > MAX_BODY_BYTES) return refuseTooLarge(req, res, MAX_BODY_BYTES);
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  let body: Buffer | undefined;
  try {
    body = await readBody(req, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLarge) return refuseTooLarge(req, res, MAX_BODY_BYTES);
    throw error;
  }
  const hasBody = body !== undefined && body.length > 0;
  const context = { params: Promise.resolve(params) };
  if (handler.answer) {
    // An apiRoute reads a request's method, URL, headers and signal, and its body as read here.
    const request = nodeRequest(req, res, url);
    const answered = await handler.answer(hasBody ? requestWithBody(request, body!) : request, context);
    return writeAnswer(res, answered);
  }
  const controller = abortOnEarlyClose(res);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  const request = new Request(url, { method: req.method, headers, body: hasBody ? new Uint8Array(body!) : undefined, signal: controller.signal });
  return writeAnswer(res, await handler(request, context));
}

/** A controller that aborts when the client goes away before its answer is written (held requests notice). */
function abortOnEarlyClose(res: ServerResponse): AbortController {
  const controller = new AbortController();
  if (res.closed) {
    if (!res.writableFinished) controller.abort();
  } else {
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
  }
  return controller;
}

/**
 * node's request as the Request an apiRoute reads (method, url, headers.get/has, signal), over
 * node's own header object: a web Request and its Headers, built and checked field by field for
 * each hook call, were a tenth of the hook path's CPU (issue 26). Its body is the one read
 * already (requestWithBody); it has none of its own. Its signal is made when first read (only a
 * hook that waits, an approval or a command, reads it): an AbortSignal a call was ~5 µs.
 */
function nodeRequest(req: IncomingMessage, res: ServerResponse, url: URL): Request {
  const own = req.headers;
  const value = (name: string) => own[name.toLowerCase()];
  const headers = {
    get(name: string): string | null {
      const v = value(name);
      return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
    },
    has: (name: string) => value(name) !== undefined,
  };
  let controller: AbortController | undefined;
  return {
    method: req.method ?? "GET",
    url: url.href,
    headers,
    body: null,
    get signal() {
      return (controller ??= abortOnEarlyClose(res)).signal;
    },
  } as unknown as Request;
}

async function writeAnswer(res: ServerResponse, answered: Response | RouteAnswer): Promise<void> {
  // Response.json's own refusal when the value has no JSON (undefined, a function): an internal error.
  const text = answered instanceof Response ? undefined : (JSON.stringify(answered.json) as string | undefined);
  if (text !== undefined) {
    const own = (answered as { headers?: Record<string, string> }).headers;
    if (own) for (const name in own) res.setHeader(name, own[name]);
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store", "content-length": Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  const response = answered instanceof Response ? answered : toErrorResponse(new TypeError("The route's answer is not JSON serializable"));
  const out = Buffer.from(await response.arrayBuffer());
  // Every Set-Cookie of the answer (Headers iterates them one by one; an object would keep the last).
  const cookies = response.headers.getSetCookie();
  res.writeHead(response.status, { ...Object.fromEntries(response.headers.entries()), ...(cookies.length > 0 && { "set-cookie": cookies }) });
  res.end(out);
}

async function handle(routes: RouteEntry[], req: IncomingMessage, res: ServerResponse) {
  // As server.ts answers it: a path that cannot be decoded names nothing (request-guard.ts).
  if (!hasDecodablePath(req.url ?? "/")) {
    res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "bad_request", message: "The path is not valid percent-encoded UTF-8" } }));
    return;
  }
  const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
  for (const route of routes) {
    const params = route.method === req.method ? matchPath(route.path, pathname) : undefined;
    if (params) return serveWithHandler(route.handler, req, res, params);
  }
  res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "not_found", message: `${req.method} ${pathname}` } }));
}

/** The request listener of startRouteServer, for a test that puts something in front of it. */
export function routeRequestListener(routes: RouteEntry[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    handle(routes, req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    });
  };
}

export async function startRouteServer(routes: RouteEntry[], port = 0): Promise<RouteServer> {
  const server = createServer(routeRequestListener(routes));
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
