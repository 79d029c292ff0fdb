"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { getDatabase } from "@/db/client";
import { errorToActionState, refuseUnsafeInput, zodToActionState, type ActionState } from "@/lib/platform/api/action-state";
import { credentialsSchema, setupFirstAdmin, signIn, signOut } from "@/lib/platform/auth/account-service";
import { SESSION_COOKIE, SESSION_TTL_MS } from "@/lib/platform/auth/principal";
import { safeRedirectPath } from "@/lib/platform/auth/redirect-target";
import { CLIENT_ADDRESS_HEADER } from "@/lib/platform/security/client-address";

async function setSessionCookie(token: string) {
  (await cookies()).set(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "lax",
    secure: process.env.HOOKPLANE_SECURE_COOKIES === "1",
    path: "/",
    maxAge: SESSION_TTL_MS / 1000,
  });
}

function credentialsFrom(form: FormData) {
  return credentialsSchema.safeParse({ email: form.get("email"), password: form.get("password") });
}

/** Written by the web edge (server.ts) from the socket, never by the client. */
async function clientAddress(): Promise<string> {
  return (await headers()).get(CLIENT_ADDRESS_HEADER) ?? "unknown";
}

export async function setupAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  // Only the credentials reach the database; `next` is only ever a redirect, checked as one.
  const refused = refuseUnsafeInput({ email: form.get("email"), password: form.get("password") });
  if (refused) return refused;
  const parsed = credentialsFrom(form);
  if (!parsed.success) return zodToActionState(parsed.error);
  try {
    const { db } = await getDatabase();
    await setupFirstAdmin(db, parsed.data);
    const session = await signIn(db, { ...parsed.data, address: await clientAddress() });
    await setSessionCookie(session.sessionToken);
  } catch (error) {
    return errorToActionState(error);
  }
  redirect("/agents");
}

export async function signInAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  // Only the credentials reach the database; `next` is only ever a redirect, checked as one.
  const refused = refuseUnsafeInput({ email: form.get("email"), password: form.get("password") });
  if (refused) return refused;
  const parsed = credentialsFrom(form);
  if (!parsed.success) return zodToActionState(parsed.error);
  try {
    const { db } = await getDatabase();
    const session = await signIn(db, { ...parsed.data, address: await clientAddress() });
    await setSessionCookie(session.sessionToken);
  } catch (error) {
    return errorToActionState(error);
  }
  // The fallback is the dashboard's home itself: a redirect to "/" (which redirects on to
  // /agents) leaves the address bar at "/" after a server action in Next 16.
  redirect(safeRedirectPath(form.get("next"), "/agents"));
}

export async function signOutAction(): Promise<void> {
  const jar = await cookies();
  const { db } = await getDatabase();
  await signOut(db, jar.get(SESSION_COOKIE)?.value);
  jar.delete(SESSION_COOKIE);
  redirect("/sign-in");
}
