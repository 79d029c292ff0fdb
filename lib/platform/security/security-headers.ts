/**
 * Headers on every answer (pages, API, assets): no framing (clickjacking of the approval
 * buttons), no MIME sniffing, no URLs leaking to other sites, and HTTPS pinned when secure
 * cookies say we are behind HTTPS.
 */

export interface SecurityHeaderOptions {
  /** HOOKPLANE_SECURE_COOKIES=1: served over HTTPS, so HSTS. */
  secure: boolean;
  /** `npm run dev`: React's dev build needs eval. */
  dev: boolean;
}

/**
 * Scripts: 'self' plus 'unsafe-inline', not a per-request nonce. Next's App Router streams its
 * flight data in inline <script> tags and our layout has an inline theme script; a nonce would
 * need a proxy on every request and would make every page dynamic, and the pages Next prerenders
 * (not-found, error) would carry no nonce and fail to hydrate. The protection we need here is
 * framing, foreign script files and exfiltration (script-src/connect-src 'self'); injected markup
 * is React-escaped everywhere (no dangerouslySetInnerHTML of stored data). Revisit with a nonce
 * if a page ever renders stored HTML.
 */
export function contentSecurityPolicy(options: SecurityHeaderOptions): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${options.dev ? " 'unsafe-eval'" : ""}`,
    // React style props and the chart/virtual-list libraries write inline styles.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    // 'self' covers the same-origin WebSocket (/api/ws, dev HMR) in current browsers.
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function securityHeaders(options: SecurityHeaderOptions): [string, string][] {
  const headers: [string, string][] = [
    ["Content-Security-Policy", contentSecurityPolicy(options)],
    ["X-Frame-Options", "DENY"],
    ["X-Content-Type-Options", "nosniff"],
    // Not "no-referrer": with it, browsers send `Origin: null` on same-origin form posts, which
    // the Origin check for server actions would then refuse.
    ["Referrer-Policy", "same-origin"],
    // Other sites may neither hold a window on ours nor embed our answers (API JSON included).
    ["Cross-Origin-Opener-Policy", "same-origin"],
    ["Cross-Origin-Resource-Policy", "same-origin"],
  ];
  if (options.secure) headers.push(["Strict-Transport-Security", "max-age=31536000"]);
  return headers;
}
