/**
 * Did a browser send this request from one of our own pages? Browsers set `Origin` on every
 * write and `Sec-Fetch-Site` on every request, and a page cannot forge either; scripts send
 * neither. Same origin is compared by host and port: `http://127.0.0.1:4399` is the same *site* as
 * a server on `127.0.0.1:4398` (so SameSite cookies ride along) but not the same origin.
 */

type HeaderReader = { get(name: string): string | null };

export type OriginVerdict = "same" | "foreign" | "unknown";

/** The host the client addressed; a proxy in front names it in X-Forwarded-Host. */
export function addressedHost(headers: HeaderReader, fallbackUrl?: string): string | undefined {
  const forwarded = headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  const host = forwarded || headers.get("host") || (fallbackUrl ? new URL(fallbackUrl).host : undefined);
  return host?.toLowerCase();
}

function hostOf(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" || url.protocol === "https:" ? url.host : undefined;
  } catch {
    return undefined;
  }
}

/**
 * "same" when the browser says so, "foreign" when it names another origin (or `null`, which
 * sandboxed frames and file pages send), "unknown" when it says nothing (a script, or a browser
 * too old to send either header).
 */
export function originVerdict(headers: HeaderReader, fallbackUrl?: string): OriginVerdict {
  const site = headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") return "foreign";
  const origin = headers.get("origin");
  if (origin !== null) {
    const host = addressedHost(headers, fallbackUrl);
    return host !== undefined && hostOf(origin) === host ? "same" : "foreign";
  }
  return site === "same-origin" ? "same" : "unknown";
}
