/**
 * The browser's cookies of signing in, in one place: httpOnly (no script reads them), SameSite=Lax
 * (sent on a top-level navigation back from an identity provider, not on another site's
 * subrequests or form posts), Secure behind HTTPS (HOOKPLANE_SECURE_COOKIES).
 */
import { getConfig } from "@/lib/platform/config/config";
import { SESSION_COOKIE, SESSION_TTL_MS } from "./principal";

export interface CookieOptions {
  path: string;
  /** Seconds; 0 deletes the cookie. */
  maxAge: number;
}

/** For Next's `cookies().set` (server actions). */
export function sessionCookieOptions() {
  return { httpOnly: true, sameSite: "lax", secure: getConfig().HOOKPLANE_SECURE_COOKIES, path: "/", maxAge: SESSION_TTL_MS / 1000 } as const;
}

/** A `Set-Cookie` header value, for route handlers that answer with a redirect. */
export function setCookieHeader(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${options.path}`, `Max-Age=${options.maxAge}`, "HttpOnly", "SameSite=Lax"];
  if (options.maxAge === 0) parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  if (getConfig().HOOKPLANE_SECURE_COOKIES) parts.push("Secure");
  return parts.join("; ");
}

export function sessionSetCookie(token: string): string {
  return setCookieHeader(SESSION_COOKIE, token, { path: "/", maxAge: SESSION_TTL_MS / 1000 });
}
