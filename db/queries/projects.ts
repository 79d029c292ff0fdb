/**
 * Projects and who belongs to them. A person's role in a project is one row of project_members;
 * instance admins are admin in every project without a row.
 */
import { and, asc, count, eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { DEFAULT_PROJECT_ID, projectMembers, projects, users, type Role } from "../schema";

export type ProjectRow = typeof projects.$inferSelect;

export async function createProject(db: Db, params: { slug: string; name: string }) {
  const [row] = await db.insert(projects).values(params).onConflictDoNothing({ target: projects.slug }).returning();
  return row;
}

export async function getProjectBySlug(db: Db, params: { slug: string }) {
  const [row] = await db.select().from(projects).where(eq(projects.slug, params.slug));
  return row;
}

export async function getProjectById(db: Db, params: { id: string }) {
  const [row] = await db.select().from(projects).where(eq(projects.id, params.id));
  return row;
}

/** Every project, the default first. */
export async function listProjects(db: Db) {
  return db
    .select()
    .from(projects)
    .orderBy(sql`${projects.id} <> ${DEFAULT_PROJECT_ID}`, asc(projects.name));
}

export async function renameProject(db: Db, params: { id: string; name: string }) {
  const [row] = await db.update(projects).set({ name: params.name }).where(eq(projects.id, params.id)).returning();
  return row;
}

/** Deletes the project and, by cascade, everything in it. The default project is never deleted. */
export async function deleteProject(db: Db, params: { id: string }) {
  if (params.id === DEFAULT_PROJECT_ID) return undefined;
  const [row] = await db.delete(projects).where(eq(projects.id, params.id)).returning();
  return row;
}

/** The projects a person is a member of, with their role in each, the default first. */
export async function listMemberships(db: Db, params: { userId: string }) {
  return db
    .select({ projectId: projects.id, slug: projects.slug, name: projects.name, role: projectMembers.role })
    .from(projectMembers)
    .innerJoin(projects, eq(projects.id, projectMembers.projectId))
    .where(eq(projectMembers.userId, params.userId))
    .orderBy(sql`${projects.id} <> ${DEFAULT_PROJECT_ID}`, asc(projects.name));
}

/** A project by slug with the person's role in it (null: not a member), in one statement. */
export async function getProjectWithRole(db: Db, params: { slug: string; userId: string }) {
  const [row] = await db
    .select({ id: projects.id, slug: projects.slug, role: projectMembers.role })
    .from(projects)
    .leftJoin(projectMembers, and(eq(projectMembers.projectId, projects.id), eq(projectMembers.userId, params.userId)))
    .where(eq(projects.slug, params.slug));
  return row;
}

export async function getMemberRole(db: Db, params: { projectId: string; userId: string }): Promise<Role | undefined> {
  const [row] = await db
    .select({ role: projectMembers.role })
    .from(projectMembers)
    .where(and(eq(projectMembers.projectId, params.projectId), eq(projectMembers.userId, params.userId)));
  return row?.role;
}

/** Sets a person's role in a project; null removes them from it. */
export async function setMemberRole(db: Db, params: { projectId: string; userId: string; role: Role | null }) {
  if (params.role === null) {
    await db.delete(projectMembers).where(and(eq(projectMembers.projectId, params.projectId), eq(projectMembers.userId, params.userId)));
    return;
  }
  await db
    .insert(projectMembers)
    .values({ projectId: params.projectId, userId: params.userId, role: params.role })
    .onConflictDoUpdate({ target: [projectMembers.projectId, projectMembers.userId], set: { role: params.role } });
}

export async function listMembers(db: Db, params: { projectId: string }) {
  return db
    .select({ userId: users.id, email: users.email, role: projectMembers.role, disabled: users.disabled, ssoGroups: users.ssoGroups, createdAt: projectMembers.createdAt })
    .from(projectMembers)
    .innerJoin(users, eq(users.id, projectMembers.userId))
    .where(eq(projectMembers.projectId, params.projectId))
    .orderBy(asc(users.email));
}

/** Active admins of the project by membership (instance admins not counted). */
export async function countProjectAdmins(db: Db, params: { projectId: string }): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(projectMembers)
    .innerJoin(users, eq(users.id, projectMembers.userId))
    .where(and(eq(projectMembers.projectId, params.projectId), eq(projectMembers.role, "admin"), eq(users.disabled, false)));
  return row.n;
}

/** Every membership with its project's slug, for Settings → People (each account's projects). */
export async function listAllMemberships(db: Db) {
  return db
    .select({ userId: projectMembers.userId, projectId: projects.id, slug: projects.slug, role: projectMembers.role })
    .from(projectMembers)
    .innerJoin(projects, eq(projects.id, projectMembers.projectId))
    .orderBy(sql`${projects.id} <> ${DEFAULT_PROJECT_ID}`, asc(projects.slug));
}

/** The people of a project (their ids), for closing their sockets when it goes. */
export async function listMemberIds(db: Db, params: { projectId: string }): Promise<string[]> {
  const rows = await db.select({ userId: projectMembers.userId }).from(projectMembers).where(eq(projectMembers.projectId, params.projectId));
  return rows.map((r) => r.userId);
}
