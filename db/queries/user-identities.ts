import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../client";
import { userIdentities, users } from "../schema";

/** The user an issuer's `sub` is linked to, with what a sign-in decides on. */
export async function getIdentityUser(db: Db, params: { issuer: string; subject: string }) {
  const [row] = await db
    .select({ identityId: userIdentities.id, id: users.id, email: users.email, instanceAdmin: users.instanceAdmin, disabled: users.disabled })
    .from(userIdentities)
    .innerJoin(users, eq(users.id, userIdentities.userId))
    .where(and(eq(userIdentities.issuer, params.issuer), eq(userIdentities.subject, params.subject)));
  return row;
}

export async function linkIdentity(db: Db, params: { userId: string; issuer: string; subject: string; email: string | null }) {
  const [row] = await db
    .insert(userIdentities)
    .values({ userId: params.userId, issuer: params.issuer, subject: params.subject, email: params.email, lastSignInAt: sql`now()` })
    .returning();
  return row;
}

export async function touchIdentity(db: Db, params: { id: string; email: string | null }) {
  await db.update(userIdentities).set({ email: params.email, lastSignInAt: sql`now()` }).where(eq(userIdentities.id, params.id));
}

/** Whether the user has signed in through one of these issuers. */
export async function hasIdentityAt(db: Db, params: { userId: string; issuers: string[] }): Promise<boolean> {
  if (params.issuers.length === 0) return false;
  const [row] = await db
    .select({ id: userIdentities.id })
    .from(userIdentities)
    .where(and(eq(userIdentities.userId, params.userId), inArray(userIdentities.issuer, params.issuers)))
    .limit(1);
  return row !== undefined;
}

/** Issuers per user, for Settings → Users. */
export async function listIdentityIssuers(db: Db): Promise<Map<string, string[]>> {
  const rows = await db.select({ userId: userIdentities.userId, issuer: userIdentities.issuer }).from(userIdentities).orderBy(asc(userIdentities.createdAt));
  const byUser = new Map<string, string[]>();
  for (const r of rows) byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), r.issuer]);
  return byUser;
}
