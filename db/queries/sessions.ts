import { and, eq, gt, isNull, lt } from "drizzle-orm";
import type { Db } from "../client";
import { sessions, users } from "../schema";

/** `providerId`: the single sign-on provider the person came through; omitted for a password. */
export async function createSession(db: Db, params: { tokenHash: string; userId: string; ttlMs: number; providerId?: string }) {
  await db.insert(sessions).values({
    tokenHash: params.tokenHash,
    userId: params.userId,
    providerId: params.providerId ?? null,
    expiresAt: new Date(Date.now() + params.ttlMs),
  });
}

/** The session's user, unless the session expired or the user was removed. Their project is decided after (project-access.ts). */
export async function getSessionUser(db: Db, params: { tokenHash: string }) {
  const [row] = await db
    .select({ id: users.id, email: users.email, instanceAdmin: users.instanceAdmin, disabled: users.disabled, providerId: sessions.providerId })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, params.tokenHash), gt(sessions.expiresAt, new Date())));
  return row && !row.disabled ? row : undefined;
}

export async function deleteSession(db: Db, params: { tokenHash: string }) {
  await db.delete(sessions).where(eq(sessions.tokenHash, params.tokenHash));
}

export async function deleteUserSessions(db: Db, params: { userId: string }) {
  await db.delete(sessions).where(eq(sessions.userId, params.userId));
}

export async function deleteExpiredSessions(db: Db) {
  await db.delete(sessions).where(lt(sessions.expiresAt, new Date()));
}

/** Ends every session a password opened (password sign-in turned off); returns whose they were. */
export async function deletePasswordSessions(db: Db): Promise<string[]> {
  const rows = await db.delete(sessions).where(isNull(sessions.providerId)).returning({ userId: sessions.userId });
  return [...new Set(rows.map((r) => r.userId))];
}
