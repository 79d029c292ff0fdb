/**
 * The two browser routes of single sign-on, as plain `Request → Response` handlers (app/auth/oidc
 * mounts them): GET /auth/oidc/start?provider=<id>&next=<path> sends the browser to the provider,
 * GET /auth/oidc/callback takes it back. Both always answer with a redirect: to the provider, to
 * the dashboard with a session, or to the sign-in page with a reason it words for people
 * (`/sign-in?error=<reason>&provider=<id>`), never a 500 and never a session on a failure.
 */
import { z } from "zod";
import { getDatabase } from "@/db/client";
import { isDatabaseUnavailable } from "@/db/database-unavailable";
import { readCookie, SESSION_COOKIE } from "@/lib/platform/auth/principal";
import { signOut } from "@/lib/platform/auth/account-service";
import { sessionSetCookie } from "@/lib/platform/auth/session-cookie";
import { logger } from "@/lib/platform/logger";
import { getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { FLOW_COOKIE, flowClearCookie, flowSetCookie } from "./sign-in-flow";
import { completeSsoSignIn, SsoSignInError, startSsoSignIn } from "./sso-sign-in";

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}

/** Where a failure lands: the sign-in page, which says what happened. */
export function signInErrorLocation(error: unknown): string {
  const failure = error instanceof SsoSignInError ? error : undefined;
  const reason = failure?.reason ?? (isDatabaseUnavailable(error) ? "unavailable" : "failed");
  if (reason === "failed") logger.error({ err: error }, "single sign-on failed");
  else logger.warn({ reason, detail: failure?.message }, "single sign-on refused");
  const query = new URLSearchParams({ error: reason });
  if (failure?.providerId) query.set("provider", failure.providerId);
  return `/sign-in?${query}`;
}

// `next` is any text here: safeRedirectPath makes it a path of ours or the dashboard's home.
const startQuery = z.object({ provider: z.uuid(), next: z.string().optional() });

export async function handleSsoStart(request: Request): Promise<Response> {
  try {
    const query = startQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
    if (!query.success) throw new SsoSignInError("provider_gone", "no provider id in the start link");
    const { db } = await getDatabase();
    const started = await startSsoSignIn(db, getSecretBox(), { providerId: query.data.provider, next: query.data.next });
    return redirect(started.redirectTo.href, [flowSetCookie(started.flowCookie)]);
  } catch (error) {
    return redirect(signInErrorLocation(error));
  }
}

export async function handleSsoCallback(request: Request): Promise<Response> {
  // The flow cookie is spent whatever happens next.
  const spent = flowClearCookie();
  try {
    const cookieHeader = request.headers.get("cookie");
    const { db } = await getDatabase();
    const done = await completeSsoSignIn(db, getSecretBox(), { search: new URL(request.url).search, flowCookie: readCookie(cookieHeader, FLOW_COOKIE) });
    // A session this browser had before (another account, perhaps) ends with the new sign-in.
    await signOut(db, readCookie(cookieHeader, SESSION_COOKIE)).catch(() => {});
    return redirect(done.next, [spent, sessionSetCookie(done.sessionToken)]);
  } catch (error) {
    return redirect(signInErrorLocation(error), [spent]);
  }
}
