/**
 * The signed-in principal for server components and server actions (cookie-based).
 */
import "server-only";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { getDatabase } from "@/db/client";
import { AppError } from "@/lib/platform/api/app-error";
import { principalFromSessionToken, SESSION_COOKIE } from "./principal";
import { PROJECT_COOKIE } from "./project-access";
import { signInPath } from "./redirect-target";
import { REQUEST_PATH_HEADER } from "./request-path";
import { accessRefusal, principalHas, type Access, type Principal } from "./roles";

/** The signed-in person in the project the dashboard's switcher chose (or their first). */
export async function getCurrentPrincipal(): Promise<Principal | undefined> {
  const jar = await cookies();
  const { db } = await getDatabase();
  return principalFromSessionToken(db, jar.get(SESSION_COOKIE)?.value, { preferred: jar.get(PROJECT_COOKIE)?.value });
}

/** Where a signed-out visitor of this page signs in: with the page as `next`, checked (redirect-target.ts). */
export async function signInPathHere(): Promise<string> {
  return signInPath((await headers()).get(REQUEST_PATH_HEADER) ?? undefined);
}

/** For pages: sends a signed-out visitor to sign-in, and back here afterwards. */
export async function requirePagePrincipal(): Promise<Principal> {
  const principal = await getCurrentPrincipal();
  if (!principal) redirect(await signInPathHere());
  return principal;
}

/** For server actions: the principal, or an error the form shows. */
export async function requireActionRole(access: Access): Promise<Principal> {
  const principal = await getCurrentPrincipal();
  if (!principal) throw AppError.unauthorized("Your session has ended; sign in again.");
  if (!principalHas(principal, access)) throw AppError.forbidden(`${accessRefusal(principal, access)}.`);
  return principal;
}
