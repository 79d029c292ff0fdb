/**
 * From the groups a provider says a person is in to their role in Hookplane. Pure, so the rule
 * reads in one place and is tested alone.
 *
 * - A provider with mappings decides the role on every sign-in: the highest role of the mappings
 *   whose group the person is in, or the provider's default role when none matches (null: no
 *   access). The identity provider is then the source of truth, and a role an admin set by hand
 *   lasts until the person's next sign-in.
 * - A provider without mappings sets the role of people it creates (the default role) and leaves
 *   it to admins after that.
 */
import { ROLES, type GroupRoleMapping, type Role } from "@/db/schema";

const RANK = new Map<Role, number>(ROLES.map((r, i) => [r, i]));

/** The groups claim as a list of names: an array of strings, or one string; anything else is no groups. */
export function groupsFromClaim(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === "string");
  return [];
}

/** The highest role any of the person's groups maps to, or undefined when no mapping matches. */
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
  defaultRole: Role | null;
}

/** The role of a person signing in for the first time. */
export function roleForNewUser(rule: RoleRule, groups: readonly string[]): Role | null {
  return mappedRole(rule.roleMappings, groups) ?? rule.defaultRole;
}

/**
 * The role an existing person gets on this sign-in; `current` when the provider has no mappings
 * (admins decide).
 */
export function roleOnSignIn(rule: RoleRule, groups: readonly string[], current: Role | null): Role | null {
  if (rule.roleMappings.length === 0) return current;
  return roleForNewUser(rule, groups);
}
