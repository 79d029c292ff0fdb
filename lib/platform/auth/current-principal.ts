/**
 * The signed-in principal for server components and server actions (cookie-based).
 */
import "server-only";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { getDatabase } from "@/db/client";
import type { Role } from "@/db/schema";
import { AppError } from "@/lib/platform/api/app-error";
import { principalFromSessionToken, SESSION_COOKIE } from "./principal";
import { roleAtLeast, type Principal } from "./roles";

export async function getCurrentPrincipal(): Promise<Principal | undefined> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  const { db } = await getDatabase();
  return principalFromSessionToken(db, token);
}

/** For pages: sends a signed-out visitor to sign-in. */
export async function requirePagePrincipal(): Promise<Principal> {
  const principal = await getCurrentPrincipal();
  if (!principal) redirect("/sign-in");
  return principal;
}

/** For server actions: the principal, or an error the form shows. */
export async function requireActionRole(role: Role): Promise<Principal> {
  const principal = await getCurrentPrincipal();
  if (!principal) throw AppError.unauthorized("Your session has ended; sign in again.");
  if (!roleAtLeast(principal.role, role)) throw AppError.forbidden(`This needs the ${role} role; you are ${principal.role}.`);
  return principal;
}
