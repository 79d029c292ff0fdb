/**
 * The only way hooks reach the network. Rules from Loom's trust model: https, or plain http to
 * loopback only; an optional host allowlist; redirects followed only within the same host (a
 * webhook must not be bounced to an internal service); a timeout; a cap on the response size.
 */
export interface SafeFetchPolicy {
  fetch: typeof fetch;
  /** Hosts hooks may call (`api.example.com`, `*.example.com`); empty or undefined = any. */
  allowHosts?: readonly string[];
  maxResponseBytes: number;
}

export interface SafeFetchRequest {
  url: string;
  method: "GET" | "POST" | "PUT";
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface SafeFetchResponse {
  status: number;
  body: string;
  contentType: string;
}

export class HookHttpError extends Error {
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
  }
}

const MAX_REDIRECTS = 5;

/** Throws HookHttpError with a readable message; never follows a redirect to another host. */
export async function safeFetch(policy: SafeFetchPolicy, req: SafeFetchRequest): Promise<SafeFetchResponse> {
  let url = checkUrl(req.url, policy);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, req.timeoutMs);
  const onAbort = () => controller.abort();
  if (req.signal.aborted) controller.abort();
  else req.signal.addEventListener("abort", onAbort, { once: true });
  let method: string = req.method;
  let body = req.body;
  try {
    for (let hop = 0; ; hop++) {
      const response = await policy.fetch(url, {
        method,
        headers: req.headers,
        body,
        redirect: "manual",
        signal: controller.signal,
      });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        if (hop >= MAX_REDIRECTS) throw new HookHttpError(`too many redirects (more than ${MAX_REDIRECTS})`);
        const next = new URL(location, url);
        if (next.host !== url.host || next.protocol !== url.protocol) {
          throw new HookHttpError(`redirect to another host refused: ${next.protocol}//${next.host}`);
        }
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method !== "GET")) {
          method = "GET";
          body = undefined;
        }
        url = next;
        continue;
      }
      return {
        status: response.status,
        body: await readCapped(response, policy.maxResponseBytes),
        contentType: response.headers.get("content-type") ?? "",
      };
    }
  } catch (error) {
    if (error instanceof HookHttpError) throw error;
    if (timedOut) throw new HookHttpError(`no response within ${req.timeoutMs} ms`, true);
    if (req.signal.aborted) throw new HookHttpError("aborted");
    throw new HookHttpError(`request to ${url.host} failed: ${describeFetchError(error)}`);
  } finally {
    clearTimeout(timer);
    req.signal.removeEventListener("abort", onAbort);
  }
}

/** Validates a hook URL against the policy; also used at compile time for early errors. */
export function checkUrl(raw: string, policy: Pick<SafeFetchPolicy, "allowHosts">): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new HookHttpError(`invalid URL: ${raw}`);
  }
  if (url.protocol === "http:") {
    if (!isLoopback(url.hostname)) {
      throw new HookHttpError(`plain http is allowed only to loopback; use https for ${url.host}`);
    }
  } else if (url.protocol !== "https:") {
    throw new HookHttpError(`unsupported protocol ${url.protocol} (https only)`);
  }
  const allow = policy.allowHosts;
  if (allow && allow.length > 0 && !allow.some((pattern) => hostMatches(url.hostname, pattern))) {
    throw new HookHttpError(`host ${url.hostname} is not in the webhook allowlist`);
  }
  return url;
}

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function hostMatches(hostname: string, pattern: string): boolean {
  const host = hostname.toLowerCase();
  const p = pattern.toLowerCase();
  return p.startsWith("*.") ? host.endsWith(p.slice(1)) : host === p;
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    chunks.push(value.length > room ? value.subarray(0, room) : value);
    size += Math.min(value.length, room);
    if (size >= maxBytes) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).toString("utf8");
}

function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ""}`;
  return error instanceof Error ? error.message : String(error);
}
