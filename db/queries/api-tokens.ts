import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "../client";
import { apiTokens, users, type Role } from "../schema";

export async function createApiToken(
  db: Db,
  params: { name: string; tokenHash: string; prefix: string; role: Role; userId?: string },
) {
  const [row] = await db.insert(apiTokens).values(params).returning({
    id: apiTokens.id,
    name: apiTokens.name,
    prefix: apiTokens.prefix,
    role: apiTokens.role,
    createdAt: apiTokens.createdAt,
  });
  return row;
}

/** An unrevoked token with its owner's current role and state (no owner: a token made by a token). */
export async function getActiveToken(db: Db, params: { tokenHash: string }) {
  const [row] = await db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      role: apiTokens.role,
      userId: apiTokens.userId,
      lastUsedAt: apiTokens.lastUsedAt,
      ownerRole: users.role,
      ownerDisabled: users.disabled,
    })
    .from(apiTokens)
    .leftJoin(users, eq(users.id, apiTokens.userId))
    .where(and(eq(apiTokens.tokenHash, params.tokenHash), isNull(apiTokens.revokedAt)));
  return row;
}

export async function touchToken(db: Db, params: { id: string }) {
  await db.update(apiTokens).set({ lastUsedAt: new Date() }).where(eq(apiTokens.id, params.id));
}

export async function listApiTokens(db: Db) {
  return db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      prefix: apiTokens.prefix,
      role: apiTokens.role,
      createdAt: apiTokens.createdAt,
      lastUsedAt: apiTokens.lastUsedAt,
      revokedAt: apiTokens.revokedAt,
    })
    .from(apiTokens)
    .orderBy(desc(apiTokens.createdAt));
}

export async function revokeUserTokens(db: Db, params: { userId: string }) {
  return db
    .update(apiTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiTokens.userId, params.userId), isNull(apiTokens.revokedAt)))
    .returning({ id: apiTokens.id });
}

export async function revokeApiToken(db: Db, params: { id: string }) {
  const [row] = await db
    .update(apiTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiTokens.id, params.id), isNull(apiTokens.revokedAt)))
    .returning({ id: apiTokens.id });
  return row;
}
