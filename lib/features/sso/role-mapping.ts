/**
 * From the groups a provider says a person is in to their roles in Hookplane's projects. Pure,
 * so the rule reads in one place and is tested alone. A mapping names a project by slug; one
 * without names the default project.
 *
 * - A provider with mappings decides, on every sign-in, the role in the default project and in
 *   every project a mapping names: the highest role of the mappings of that project whose group
 *   the person is in; when none matches, the provider's default role in the default project and
 *   no membership (removed) in the others (the default role null: no access to the default
 *   project). The identity provider is then the source of truth there, and a role an admin set
 *   by hand lasts until the person's next sign-in. Projects no mapping names are left to admins.
 * - A provider without mappings gives the people it creates the default role in the default
 *   project and leaves everything to admins after that.
 */
import { DEFAULT_PROJECT_SLUG, ROLES, type GroupRoleMapping, type Role } from "@/db/schema";

const RANK = new Map<Role, number>(ROLES.map((r, i) => [r, i]));

/** The groups claim as a list of names: an array of strings, or one string; anything else is no groups. */
export function groupsFromClaim(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === "string");
  return [];
}

/** The highest role any of the person's groups maps to (among `mappings`), or undefined when none matches. */
export function mappedRole(mappings: readonly GroupRoleMapping[], groups: readonly string[]): Role | undefined {
  const member = new Set(groups);
  let best: Role | undefined;
  for (const m of mappings) {
    if (member.has(m.group) && (best === undefined || RANK.get(m.role)! > RANK.get(best)!)) best = m.role;
  }
  return best;
}

export interface RoleRule {
  roleMappings: readonly GroupRoleMapping[];
  /** The role in the default project when no mapping of it matches; null: none. */
  defaultRole: Role | null;
}

/** A role a sign-in gives a person in one project (by slug); null: not a member of it. */
export interface ProjectRoleDecision {
  project: string;
  role: Role | null;
}

export function mappingProject(mapping: GroupRoleMapping): string {
  return mapping.project ?? DEFAULT_PROJECT_SLUG;
}

/**
 * What this sign-in decides, project by project (the default project first); a project it does
 * not list keeps what admins set. `isNew`: the person's first sign-in created their account.
 */
export function projectRolesOnSignIn(rule: RoleRule, groups: readonly string[], isNew: boolean): ProjectRoleDecision[] {
  if (rule.roleMappings.length === 0) return isNew ? [{ project: DEFAULT_PROJECT_SLUG, role: rule.defaultRole }] : [];
  const projects = [DEFAULT_PROJECT_SLUG, ...new Set(rule.roleMappings.map(mappingProject).filter((p) => p !== DEFAULT_PROJECT_SLUG))];
  return projects.map((project) => {
    const role = mappedRole(
      rule.roleMappings.filter((m) => mappingProject(m) === project),
      groups,
    );
    return { project, role: role ?? (project === DEFAULT_PROJECT_SLUG ? rule.defaultRole : null) };
  });
}
