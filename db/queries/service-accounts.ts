import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../client";
import { apiTokens, serviceAccounts } from "../schema";
import { deleteInProject, findInProject } from "./project-rows";

export async function createServiceAccount(db: Db, params: { projectId: string; name: string; description: string; createdBy: string }) {
  const [row] = await db.insert(serviceAccounts).values(params).onConflictDoNothing().returning();
  return row;
}

export async function getServiceAccount(db: Db, params: { projectId: string; id: string }) {
  return findInProject(db, serviceAccounts, params.projectId, eq(serviceAccounts.id, params.id));
}

/** The project's service accounts, each with how many active tokens it has and when one was last used. */
export async function listServiceAccounts(db: Db, params: { projectId: string }) {
  return db
    .select({
      id: serviceAccounts.id,
      name: serviceAccounts.name,
      description: serviceAccounts.description,
      createdBy: serviceAccounts.createdBy,
      createdAt: serviceAccounts.createdAt,
      activeTokens: sql<number>`count(${apiTokens.id})::int`,
      lastUsedAt: sql<Date | null>`max(${apiTokens.lastUsedAt})`.mapWith((v: string | Date | null) => (v ? new Date(v) : null)),
    })
    .from(serviceAccounts)
    .leftJoin(apiTokens, and(eq(apiTokens.serviceAccountId, serviceAccounts.id), isNull(apiTokens.revokedAt)))
    .where(eq(serviceAccounts.projectId, params.projectId))
    .groupBy(serviceAccounts.id)
    .orderBy(asc(serviceAccounts.name));
}

/** Deletes the account and, with it, its tokens (the foreign key cascades); their ids, to forget them at once. */
export async function deleteServiceAccount(db: Db, params: { projectId: string; id: string }) {
  const tokens = await db.select({ id: apiTokens.id }).from(apiTokens).where(eq(apiTokens.serviceAccountId, params.id));
  const row = await deleteInProject(db, serviceAccounts, params.projectId, eq(serviceAccounts.id, params.id));
  return row && { ...row, tokenIds: tokens.map((t) => t.id) };
}
