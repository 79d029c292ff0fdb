import { and, eq, gt, lt } from "drizzle-orm";
import type { Db } from "../client";
import { sessions, users } from "../schema";

export async function createSession(db: Db, params: { tokenHash: string; userId: string; ttlMs: number }) {
  await db.insert(sessions).values({
    tokenHash: params.tokenHash,
    userId: params.userId,
    expiresAt: new Date(Date.now() + params.ttlMs),
  });
}

export async function getSessionUser(db: Db, params: { tokenHash: string }) {
  const [row] = await db
    .select({ id: users.id, email: users.email, role: users.role, disabled: users.disabled })
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
