import { and, asc, count, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { users } from "../schema";

export async function countUsers(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users);
  return row.n;
}

export async function getUserByEmail(db: Db, params: { email: string }) {
  const [row] = await db.select().from(users).where(eq(users.email, params.email.toLowerCase()));
  return row;
}

/**
 * `passwordHash` null: single sign-on only. A new person reaches nothing until they are given a
 * role in a project (db/queries/projects.ts setMemberRole) or made an instance admin.
 */
export async function createUser(db: Db, params: { email: string; passwordHash: string | null; instanceAdmin?: boolean }) {
  const [row] = await db
    .insert(users)
    .values({ email: params.email.toLowerCase(), passwordHash: params.passwordHash, instanceAdmin: params.instanceAdmin ?? false })
    .returning();
  return row;
}

/**
 * Creates the first admin only while no user exists. The advisory lock serializes two setup
 * requests racing on PostgreSQL; returns undefined when a user already exists.
 */
export async function createFirstAdmin(db: Db, params: { email: string; passwordHash: string }) {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7240115)`);
    if ((await countUsers(tx as unknown as Db)) > 0) return undefined;
    return createUser(tx as unknown as Db, { ...params, instanceAdmin: true });
  });
}

export async function listUsers(db: Db) {
  return db
    .select({
      id: users.id,
      email: users.email,
      instanceAdmin: users.instanceAdmin,
      disabled: users.disabled,
      hasPassword: sql<boolean>`${users.passwordHash} is not null`,
      slackUserId: users.slackUserId,
      createdAt: users.createdAt,
    })
    .from(users)
    .orderBy(asc(users.createdAt));
}

export async function setInstanceAdmin(db: Db, params: { id: string; instanceAdmin: boolean }) {
  const [row] = await db.update(users).set({ instanceAdmin: params.instanceAdmin }).where(eq(users.id, params.id)).returning();
  return row;
}

/** The person `where` finds, as access checks read them: who, whether an instance admin, whether removed. */
export async function findPerson(db: Db, where: SQL) {
  const [row] = await db
    .select({ id: users.id, email: users.email, instanceAdmin: users.instanceAdmin, disabled: users.disabled })
    .from(users)
    .where(where);
  return row;
}

export async function getUserById(db: Db, params: { id: string }) {
  return findPerson(db, eq(users.id, params.id));
}

/** Removal keeps the row (audit rows and decisions still name it) but nothing signs in as it again. */
export async function disableUser(db: Db, params: { id: string }) {
  await db.update(users).set({ disabled: true }).where(eq(users.id, params.id));
}

export async function countInstanceAdmins(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users).where(and(eq(users.instanceAdmin, true), eq(users.disabled, false)));
  return row.n;
}

/**
 * The groups single sign-on sent at the person's last sign-in (hooks' `group:` scopes read them);
 * true when they changed.
 */
export async function setUserSsoGroups(db: Db, params: { id: string; groups: string[] }): Promise<boolean> {
  const groups = [...new Set(params.groups)].sort();
  const changed = await db
    .update(users)
    .set({ ssoGroups: groups })
    .where(and(eq(users.id, params.id), sql`${users.ssoGroups} is distinct from ${`{${groups.map((g) => JSON.stringify(g)).join(",")}}`}::text[]`))
    .returning({ id: users.id });
  return changed.length > 0;
}
