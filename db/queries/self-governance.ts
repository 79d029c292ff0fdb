import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../client";
import { runs, selfGovernanceGrants, users } from "../schema";
import { deleteInProject } from "./project-rows";

/**
 * The agents whose bridged sessions an actor (`user:<id>`, `service:<id>`, `token:<id>`) has
 * sent calls to, in a project (every project when null): the agents whose rules govern them.
 */
export async function listGovernedAgentIds(db: Db, params: { projectId: string | null; actorKey: string }): Promise<string[]> {
  const rows = await db
    .selectDistinct({ agentId: runs.agentId })
    .from(runs)
    .where(and(eq(runs.actorKey, params.actorKey), isNotNull(runs.externalSessionId), params.projectId ? eq(runs.projectId, params.projectId) : undefined));
  return rows.map((r) => r.agentId);
}

export async function hasSelfGovernanceGrant(db: Db, params: { projectId: string | null; userId: string }): Promise<boolean> {
  const [row] = await db
    .select({ n: sql<number>`1` })
    .from(selfGovernanceGrants)
    .where(and(eq(selfGovernanceGrants.userId, params.userId), params.projectId ? eq(selfGovernanceGrants.projectId, params.projectId) : undefined))
    .limit(1);
  return Boolean(row);
}

export async function grantSelfGovernance(db: Db, params: { projectId: string; userId: string; grantedBy: string }) {
  const [row] = await db.insert(selfGovernanceGrants).values(params).onConflictDoNothing().returning();
  return row;
}

export async function revokeSelfGovernance(db: Db, params: { projectId: string; userId: string }) {
  return deleteInProject(db, selfGovernanceGrants, params.projectId, eq(selfGovernanceGrants.userId, params.userId));
}

/** The people of a project holding the grant. */
export async function listSelfGovernanceGrants(db: Db, params: { projectId: string; userIds?: string[] }) {
  return db
    .select({ userId: selfGovernanceGrants.userId, email: users.email, grantedBy: selfGovernanceGrants.grantedBy, grantedAt: selfGovernanceGrants.grantedAt })
    .from(selfGovernanceGrants)
    .innerJoin(users, eq(users.id, selfGovernanceGrants.userId))
    .where(and(eq(selfGovernanceGrants.projectId, params.projectId), params.userIds ? inArray(selfGovernanceGrants.userId, params.userIds) : undefined));
}

/** The groups single sign-on gave the person at their last sign-in. */
export async function getUserSsoGroups(db: Db, params: { userId: string }): Promise<string[]> {
  const [row] = await db.select({ groups: users.ssoGroups }).from(users).where(eq(users.id, params.userId));
  return row?.groups ?? [];
}
