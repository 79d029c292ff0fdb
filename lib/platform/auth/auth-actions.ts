"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { getDatabase } from "@/db/client";
import { formAction } from "@/lib/platform/api/action";
import { credentialsSchema, setupFirstAdmin, signIn, signOut } from "@/lib/platform/auth/account-service";
import { SESSION_COOKIE } from "@/lib/platform/auth/principal";
import { sessionCookieOptions } from "@/lib/platform/auth/session-cookie";
import { safeRedirectPath } from "@/lib/platform/auth/redirect-target";
import { CLIENT_ADDRESS_HEADER } from "@/lib/platform/security/client-address";

async function setSessionCookie(token: string) {
  (await cookies()).set(SESSION_COOKIE, token, sessionCookieOptions());
}

/** Written by the web edge (server.ts) from the socket, never by the client. */
async function clientAddress(): Promise<string> {
  return (await headers()).get(CLIENT_ADDRESS_HEADER) ?? "unknown";
}

// Only the credentials reach the database; `next` is only ever a redirect, checked as one.
const credentials = {
  role: "public",
  input: credentialsSchema,
  read: (raw: FormData | Record<string, unknown>) => (raw instanceof FormData ? { email: raw.get("email"), password: raw.get("password") } : raw),
  check: "input",
} as const;

export const setupAction = formAction(credentials, async ({ db, input }) => {
  // Signed in as the admin they just made: no API token nobody would see (the API's setup returns one).
  await setupFirstAdmin(db, input, { apiToken: false });
  const session = await signIn(db, { ...input, address: await clientAddress() });
  await setSessionCookie(session.sessionToken);
  return { redirectTo: "/" };
});

export const signInAction = formAction(credentials, async ({ db, input, raw }) => {
  const session = await signIn(db, { ...input, address: await clientAddress() });
  await setSessionCookie(session.sessionToken);
  // The fallback is the dashboard's home itself: a redirect to "/" (which redirects on to
  // /agents) leaves the address bar at "/" after a server action in Next 16.
  return { redirectTo: safeRedirectPath(raw instanceof FormData ? raw.get("next") : undefined, "/") };
});

export async function signOutAction(): Promise<void> {
  const jar = await cookies();
  const { db } = await getDatabase();
  await signOut(db, jar.get(SESSION_COOKIE)?.value);
  jar.delete(SESSION_COOKIE);
  redirect("/sign-in");
}
