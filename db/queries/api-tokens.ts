import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../client";
import { apiTokens, projectMembers, projects, serviceAccounts, users, type Role, type TokenKind } from "../schema";

export async function createApiToken(
  db: Db,
  params: { projectId: string; name: string; tokenHash: string; prefix: string; role: Role; userId?: string; kind?: TokenKind; serviceAccountId?: string },
) {
  const [row] = await db.insert(apiTokens).values(params).returning({
    id: apiTokens.id,
    name: apiTokens.name,
    prefix: apiTokens.prefix,
    role: apiTokens.role,
    kind: apiTokens.kind,
    createdAt: apiTokens.createdAt,
  });
  return row;
}

/**
 * An unrevoked token with its project and its owner's current role there (admin for an instance
 * admin; null when the owner left the project) and state (no owner: a token made by a token).
 */
export async function getActiveToken(db: Db, params: { tokenHash: string }) {
  const [row] = await db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      role: apiTokens.role,
      userId: apiTokens.userId,
      projectId: apiTokens.projectId,
      projectSlug: projects.slug,
      lastUsedAt: apiTokens.lastUsedAt,
      ownerRole: sql<Role | null>`case when ${users.instanceAdmin} then 'admin' else ${projectMembers.role} end`,
      ownerDisabled: users.disabled,
      ownerEmail: users.email,
      ownerGroups: users.ssoGroups,
      kind: apiTokens.kind,
      serviceAccountId: apiTokens.serviceAccountId,
      serviceAccountName: serviceAccounts.name,
    })
    .from(apiTokens)
    .innerJoin(projects, eq(projects.id, apiTokens.projectId))
    .leftJoin(serviceAccounts, eq(serviceAccounts.id, apiTokens.serviceAccountId))
    .leftJoin(users, eq(users.id, apiTokens.userId))
    .leftJoin(projectMembers, and(eq(projectMembers.projectId, apiTokens.projectId), eq(projectMembers.userId, apiTokens.userId)))
    .where(and(eq(apiTokens.tokenHash, params.tokenHash), isNull(apiTokens.revokedAt)));
  return row;
}

export async function touchToken(db: Db, params: { id: string }) {
  await db.update(apiTokens).set({ lastUsedAt: new Date() }).where(eq(apiTokens.id, params.id));
}

const listedColumns = {
  id: apiTokens.id,
  name: apiTokens.name,
  prefix: apiTokens.prefix,
  role: apiTokens.role,
  kind: apiTokens.kind,
  userId: apiTokens.userId,
  ownerEmail: users.email,
  serviceAccountId: apiTokens.serviceAccountId,
  serviceAccountName: serviceAccounts.name,
  createdAt: apiTokens.createdAt,
  lastUsedAt: apiTokens.lastUsedAt,
  revokedAt: apiTokens.revokedAt,
};

/** The project's tokens, each with its kind and owner (admins list and revoke every person's credentials). */
export async function listApiTokens(db: Db, params: { projectId: string; kind?: TokenKind; userId?: string }) {
  return db
    .select(listedColumns)
    .from(apiTokens)
    .leftJoin(users, eq(users.id, apiTokens.userId))
    .leftJoin(serviceAccounts, eq(serviceAccounts.id, apiTokens.serviceAccountId))
    .where(
      and(
        eq(apiTokens.projectId, params.projectId),
        params.kind ? eq(apiTokens.kind, params.kind) : undefined,
        params.userId ? eq(apiTokens.userId, params.userId) : undefined,
      ),
    )
    .orderBy(desc(apiTokens.createdAt));
}

/** Revokes one of a person's own tokens of `kind` (undefined: not theirs, or already revoked). */
export async function revokeOwnToken(db: Db, params: { projectId: string; id: string; userId: string; kind: TokenKind }) {
  const [row] = await db
    .update(apiTokens)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(apiTokens.id, params.id),
        eq(apiTokens.projectId, params.projectId),
        eq(apiTokens.userId, params.userId),
        eq(apiTokens.kind, params.kind),
        isNull(apiTokens.revokedAt),
      ),
    )
    .returning({ id: apiTokens.id });
  return row;
}

export async function revokeUserTokens(db: Db, params: { userId: string }) {
  return db
    .update(apiTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiTokens.userId, params.userId), isNull(apiTokens.revokedAt)))
    .returning({ id: apiTokens.id });
}

export async function revokeApiToken(db: Db, params: { projectId: string; id: string }) {
  const [row] = await db
    .update(apiTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiTokens.id, params.id), eq(apiTokens.projectId, params.projectId), isNull(apiTokens.revokedAt)))
    .returning({ id: apiTokens.id });
  return row;
}

/** The project's unrevoked tokens (their ids), for closing their sockets when it goes. */
export async function listActiveTokenIds(db: Db, params: { projectId: string }): Promise<string[]> {
  const rows = await db
    .select({ id: apiTokens.id })
    .from(apiTokens)
    .where(and(eq(apiTokens.projectId, params.projectId), isNull(apiTokens.revokedAt)));
  return rows.map((r) => r.id);
}
