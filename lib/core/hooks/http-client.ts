/**
 * The only way hooks reach the network, through the server's one outbound guard (lib/core/outbound):
 * http(s) only; private, loopback, link-local and metadata targets only for hosts on the admin's
 * allow-list, checked on the resolved addresses of every hop; plain http only to those allow-listed
 * hosts (nothing readable crosses the internet); redirects followed only within the same host (a
 * webhook must not be bounced elsewhere with its headers); a timeout; a cap on the response size.
 */
import { hostMatchesAny, normalizeHost } from "@/lib/core/outbound/address-policy";
import { mayBePrivate, preflight, type OutboundPolicy } from "@/lib/core/outbound/outbound-guard";
import { OutboundError, type OutboundTransport } from "@/lib/core/outbound/outbound-request";

export interface SafeFetchPolicy {
  /** Sends one guarded request (lib/core/outbound's sendOutbound); tests may replace the network. */
  transport: OutboundTransport;
  outbound: OutboundPolicy;
  /** When non-empty, the only hosts that may be called (`api.example.com`, `*.example.com`). */
  onlyHosts?: readonly string[];
  maxResponseBytes: number;
}

export interface SafeFetchRequest {
  url: string | URL;
  method: "GET" | "POST" | "PUT" | "PATCH";
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
  const deadline = Date.now() + req.timeoutMs;
  let method: string = req.method;
  let body = req.body;
  try {
    for (let hop = 0; ; hop++) {
      const response = await policy.transport(policy.outbound, {
        url,
        method,
        headers: req.headers,
        body,
        timeoutMs: Math.max(1, deadline - Date.now()),
        signal: req.signal,
        maxResponseBytes: policy.maxResponseBytes,
      });
      const location = header(response.headers.location);
      if (response.status >= 300 && response.status < 400 && location) {
        if (hop >= MAX_REDIRECTS) throw new HookHttpError(`too many redirects (more than ${MAX_REDIRECTS})`);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new HookHttpError("the redirect's location is not a URL");
        }
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
        body: response.body.toString("utf8"),
        contentType: header(response.headers["content-type"]) ?? "",
      };
    }
  } catch (error) {
    if (error instanceof HookHttpError) throw error;
    if (error instanceof OutboundError) {
      if (error.kind === "timeout") throw new HookHttpError(`no response within ${req.timeoutMs} ms`, true);
      throw new HookHttpError(error.message);
    }
    throw new HookHttpError(`request to ${normalizeHost(url.hostname)} failed`);
  }
}

/**
 * Checks a hook URL against the policy before anything is sent: the scheme, plain http only to
 * allow-listed hosts, the older only-these-hosts list, and names and IP literals the guard refuses.
 */
export function checkUrl(raw: string | URL, policy: Pick<SafeFetchPolicy, "outbound" | "onlyHosts">): URL {
  let url: URL;
  try {
    url = typeof raw === "string" ? new URL(raw) : raw;
  } catch {
    throw new HookHttpError(`invalid URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new HookHttpError(`unsupported protocol ${url.protocol} (http and https only)`);
  }
  const host = normalizeHost(url.hostname);
  if (url.protocol === "http:" && !mayBePrivate(host, policy.outbound)) {
    throw new HookHttpError(`plain http is allowed only to hosts on the admin's allow-list (HOOKPLANE_ALLOW_PRIVATE_HOSTS); use https for ${host}`);
  }
  const only = policy.onlyHosts;
  if (only && only.length > 0 && !hostMatchesAny(host, only)) {
    throw new HookHttpError(`host ${host} is not in the webhook allowlist`);
  }
  try {
    preflight(url, policy.outbound);
  } catch (error) {
    throw new HookHttpError((error as Error).message);
  }
  return url;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
