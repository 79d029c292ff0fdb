"use server";

import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { getDatabase } from "@/db/client";
import { errorToActionState, refuseUnsafeInput, zodToActionState, type ActionState } from "@/lib/actions/action-state";
import { credentialsSchema, setupFirstAdmin, signIn, signOut } from "@/lib/auth/account-service";
import { SESSION_COOKIE, SESSION_TTL_MS } from "@/lib/auth/principal";

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

export async function setupAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  const parsed = credentialsFrom(form);
  if (!parsed.success) return zodToActionState(parsed.error);
  try {
    const { db } = await getDatabase();
    await setupFirstAdmin(db, parsed.data);
    const session = await signIn(db, parsed.data);
    await setSessionCookie(session.sessionToken);
  } catch (error) {
    return errorToActionState(error);
  }
  redirect("/agents");
}

export async function signInAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const refused = refuseUnsafeInput(form);
  if (refused) return refused;
  const parsed = credentialsFrom(form);
  if (!parsed.success) return zodToActionState(parsed.error);
  try {
    const { db } = await getDatabase();
    const session = await signIn(db, parsed.data);
    await setSessionCookie(session.sessionToken);
  } catch (error) {
    return errorToActionState(error);
  }
  const next = String(form.get("next") ?? "");
  redirect(next.startsWith("/") && !next.startsWith("//") ? next : "/agents");
}

export async function signOutAction(): Promise<void> {
  const jar = await cookies();
  const { db } = await getDatabase();
  await signOut(db, jar.get(SESSION_COOKIE)?.value);
  jar.delete(SESSION_COOKIE);
  redirect("/sign-in");
}
