/**
 * Projects as the API and Settings manage them: instance admins create, rename and delete them;
 * everyone lists the projects they belong to. A project's slug never changes (it is in paths,
 * scripts and single sign-on mappings); its name does. The default project cannot be deleted.
 * Every change is an instance-level audit entry (projectId null): the project itself is the
 * instance's.
 */
import { z } from "zod";
import type { Db } from "@/db/client";
import { announceAccessChange } from "@/db/queries/access-changes";
import { listActiveTokenIds } from "@/db/queries/api-tokens";
import { grantSelfGovernance } from "@/db/queries/self-governance";
import { logAudit } from "@/db/queries/audit";
import { createProject, deleteProject, getProjectById, getProjectBySlug, listMemberIds, listMemberships, listProjects, renameProject, type ProjectRow } from "@/db/queries/projects";
import { DEFAULT_PROJECT_ID, type Role } from "@/db/schema";
import { AppError } from "@/lib/platform/api/app-error";
import { principalInProject } from "./principal";
import { projectSlugSchema } from "./project-slug";
import { accessRefusal, principalHas, type Access, type Principal } from "./roles";

const NAME = "name the project (1 to 100 characters): people see it in the switcher";
const nameSchema = z.string({ error: NAME }).trim().min(1, NAME).max(100, NAME);

export const projectCreateSchema = z.object({ slug: projectSlugSchema, name: nameSchema.optional() });
export const projectPatchSchema = z.object({ name: nameSchema });

export function projectView(row: ProjectRow, role?: Role) {
  return { id: row.id, slug: row.slug, name: row.name, isDefault: row.id === DEFAULT_PROJECT_ID, createdAt: row.createdAt, ...(role && { role }) };
}
export type ProjectView = ReturnType<typeof projectView>;

/** The projects the caller may act in, with their role in each: a token's own, an instance admin's all. */
export async function listProjectsOf(db: Db, principal: Principal): Promise<ProjectView[]> {
  if (principal.kind === "token") {
    const project = await getProjectById(db, { id: principal.projectId });
    return project ? [projectView(project, principal.role)] : [];
  }
  if (principal.instanceAdmin) return (await listProjects(db)).map((p) => projectView(p, "admin"));
  const roles = new Map((await listMemberships(db, { userId: principal.userId ?? principal.id })).map((m) => [m.projectId, m.role]));
  return (await listProjects(db)).flatMap((row) => (roles.has(row.id) ? [projectView(row, roles.get(row.id))] : []));
}

/**
 * The caller in the project `slug` names, with `access` there: 401 signed out, 404 when they are
 * not a member (whether it exists or not), 403 for a token of another project or a lower role.
 */
export async function requireProjectAccess(db: Db, request: Request, slug: string, access: Access): Promise<Principal> {
  const principal = await principalInProject(db, request.headers, slug);
  if (!principal) throw AppError.unauthorized();
  if (!principalHas(principal, access)) throw AppError.forbidden(accessRefusal(principal, access));
  return principal;
}

export async function createProjectAudited(db: Db, principal: Principal, input: z.infer<typeof projectCreateSchema>): Promise<ProjectView> {
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const row = await createProject(tx, { slug: input.slug, name: input.name ?? input.slug });
    if (!row) throw AppError.conflict(`A project's slug is already ${input.slug}`);
    await logAudit(tx, { projectId: null, actor: principal.label, action: "project.create", entityType: "project", entityId: row.id, after: { slug: row.slug, name: row.name } });
    // Its creator (an instance admin, signed in) keeps the rules of the project they made, their own agents' too.
    if (principal.userId) {
      await grantSelfGovernance(tx, { projectId: row.id, userId: principal.userId, grantedBy: `${principal.label}: created the project` });
      await logAudit(tx, { projectId: row.id, actor: principal.label, action: "governance.self_granted", entityType: "user", entityId: principal.userId, after: { grantedBy: "created the project" } });
    }
    return projectView(row);
  });
}

async function existing(db: Db, slug: string): Promise<ProjectRow> {
  const row = await getProjectBySlug(db, { slug });
  if (!row) throw AppError.notFound(`Project ${slug}`);
  return row;
}

export async function renameProjectAudited(db: Db, principal: Principal, slug: string, input: z.infer<typeof projectPatchSchema>): Promise<ProjectView> {
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const before = await existing(tx, slug);
    if (before.name === input.name) return projectView(before);
    const row = (await renameProject(tx, { id: before.id, name: input.name }))!;
    await logAudit(tx, { projectId: null, actor: principal.label, action: "project.rename", entityType: "project", entityId: row.id, before: { slug, name: before.name }, after: { slug, name: row.name } });
    return projectView(row);
  });
}

/**
 * Deletes a project and everything in it (agents, runs, hooks, secrets, tokens, memberships...).
 * Its members' and tokens' sockets close in every web process; their sessions stay and act in
 * another project from the next request. The default project is never deleted.
 */
export async function deleteProjectAudited(db: Db, principal: Principal, slug: string): Promise<void> {
  await db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const project = await existing(tx, slug);
    if (project.id === DEFAULT_PROJECT_ID) throw AppError.conflict("The default project cannot be deleted");
    const members = await listMemberIds(tx, { projectId: project.id });
    const tokens = await listActiveTokenIds(tx, { projectId: project.id });
    await deleteProject(tx, { id: project.id });
    await logAudit(tx, {
      projectId: null,
      actor: principal.label,
      action: "project.delete",
      entityType: "project",
      entityId: project.id,
      before: { slug: project.slug, name: project.name },
      after: { members: members.length, tokens: tokens.length },
    });
    for (const userId of members) await announceAccessChange(tx, { userId });
    for (const tokenId of tokens) await announceAccessChange(tx, { tokenId });
  });
}
