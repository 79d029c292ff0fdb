/**
 * Which project a request acts in, and with what role. A token carries its project; a person
 * names one (the `/api/v1/projects/<slug>/...` path prefix, which the server turns into the
 * `X-Hookplane-Project` header, or the header itself), or else acts in the project the dashboard's
 * switcher last chose (the `hp_project` cookie), or else in the first project they belong to.
 * Instance admins are admin in every project. Naming a project one cannot reach is a 404, the
 * same whether it exists or not.
 */
import type { Db } from "@/db/client";
import { getProjectWithRole, listMemberships, listProjects } from "@/db/queries/projects";
import type { Role } from "@/db/schema";
import { AppError } from "@/lib/platform/api/app-error";

export const PROJECT_HEADER = "x-hookplane-project";
export const PROJECT_COOKIE = "hp_project";

/** The project a request asks for: `explicit` must hold, `preferred` is a default that may not. */
export interface ProjectChoice {
  explicit?: string;
  preferred?: string;
}

export interface ProjectAccess {
  projectId: string;
  projectSlug: string;
  role: Role;
}

function unreachable(slug: string): AppError {
  return new AppError("not_found", `No project "${slug.slice(0, 80)}" that you are a member of`);
}

/** One statement: every request of a session resolves its project here. */
async function accessTo(db: Db, user: { id: string; instanceAdmin: boolean }, slug: string): Promise<ProjectAccess | undefined> {
  const project = await getProjectWithRole(db, { slug, userId: user.id });
  if (!project) return undefined;
  const role = user.instanceAdmin ? "admin" : project.role;
  return role ? { projectId: project.id, projectSlug: project.slug, role } : undefined;
}

/** A person's project for this request; undefined: they belong to no project (no access yet). */
export async function userProjectAccess(db: Db, user: { id: string; instanceAdmin: boolean }, choice: ProjectChoice = {}): Promise<ProjectAccess | undefined> {
  if (choice.explicit !== undefined) {
    const access = await accessTo(db, user, choice.explicit);
    if (!access) throw unreachable(choice.explicit);
    return access;
  }
  if (choice.preferred) {
    const access = await accessTo(db, user, choice.preferred);
    if (access) return access;
  }
  const [first] = await listMemberships(db, { userId: user.id });
  if (first) return { projectId: first.projectId, projectSlug: first.slug, role: first.role };
  if (!user.instanceAdmin) return undefined;
  const [any] = await listProjects(db);
  return any ? { projectId: any.id, projectSlug: any.slug, role: "admin" } : undefined;
}

/** A token acts in its own project only: naming another is refused, not silently ignored. */
export function assertTokenProject(tokenProjectSlug: string, choice: ProjectChoice): void {
  if (choice.explicit !== undefined && choice.explicit !== tokenProjectSlug) {
    throw AppError.forbidden(`This token belongs to project "${tokenProjectSlug}"; it cannot act in "${choice.explicit.slice(0, 80)}"`);
  }
}
