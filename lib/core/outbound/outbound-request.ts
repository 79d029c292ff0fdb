/**
 * One HTTP request through the outbound guard: no redirect followed (the caller decides, and the
 * next hop is a new guarded request), a timeout, an abort signal and a cap on the response body.
 * Failures are OutboundError with a kind and a message that never says why a connection failed:
 * "could not connect" covers refused, reset and unreachable alike, so the answers cannot map ports.
 */
import http from "node:http";
import https from "node:https";
import { normalizeHost } from "./address-policy";
import { OutboundRefused, connectOptions, type OutboundPolicy } from "./outbound-guard";

export interface OutboundRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  maxResponseBytes: number;
}

export interface OutboundResponse {
  status: number;
  statusMessage: string;
  headers: http.IncomingHttpHeaders;
  /** The first `maxResponseBytes` of the body. */
  body: Buffer;
  /** Bytes the server sent in all (more than `body` when the cap cut it). */
  totalBytes: number;
}

export type OutboundFailure = "refused" | "timeout" | "aborted" | "unreachable";

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = "OutboundError";
  }
}

/** Sends one request; the port hooks and tools use, so tests can replace the network. */
export type OutboundTransport = (policy: OutboundPolicy, req: OutboundRequest) => Promise<OutboundResponse>;

export const sendOutbound: OutboundTransport = (policy, req) => {
  let options: ReturnType<typeof connectOptions>;
  try {
    options = connectOptions(req.url, policy);
  } catch (error) {
    return Promise.reject(new OutboundError("refused", (error as Error).message));
  }
  return sendWith(options, req);
};

/**
 * The request itself, on connection options the guard chose. Exported for the benchmark, which
 * compares it with and without the guard; everything else sends through `sendOutbound`.
 */
export function sendWith(options: { lookup: unknown; agent: http.Agent }, req: OutboundRequest): Promise<OutboundResponse> {
  if (req.signal?.aborted) return Promise.reject(new OutboundError("aborted", "aborted"));
  return new Promise((resolve, reject) => {
    const transport = req.url.protocol === "https:" ? https : http;
    let settled = false;
    let timedOut = false;
    const finish = (error: OutboundError | undefined, response?: OutboundResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve(response!);
    };
    const request = transport.request(
      req.url,
      { method: req.method, headers: req.headers, lookup: options.lookup as never, agent: options.agent },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        let total = 0;
        response.on("data", (chunk: Buffer) => {
          total += chunk.length;
          const room = req.maxResponseBytes - kept;
          if (room > 0) {
            const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
            chunks.push(part);
            kept += part.length;
          }
          // Stop downloading once the cap is reached; the rest would be dropped anyway.
          if (kept >= req.maxResponseBytes) response.destroy();
        });
        const done = () =>
          finish(undefined, {
            status: response.statusCode ?? 0,
            statusMessage: response.statusMessage ?? "",
            headers: response.headers,
            body: Buffer.concat(chunks),
            totalBytes: total,
          });
        response.on("end", done);
        response.on("close", done);
        response.on("error", done);
      },
    );
    const onAbort = () => {
      request.destroy();
      finish(new OutboundError("aborted", "aborted"));
    };
    req.signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy();
      finish(new OutboundError("timeout", `no response within ${req.timeoutMs} ms`));
    }, req.timeoutMs);
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (error instanceof OutboundRefused || error.code === "EOUTBOUNDREFUSED") finish(new OutboundError("refused", error.message));
      else if (timedOut) finish(new OutboundError("timeout", `no response within ${req.timeoutMs} ms`));
      else if (req.signal?.aborted) finish(new OutboundError("aborted", "aborted"));
      else finish(new OutboundError("unreachable", `could not connect to ${normalizeHost(req.url.hostname)}`));
    });
    if (req.body !== undefined) request.write(req.body);
    request.end();
  });
}
