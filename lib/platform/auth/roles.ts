import type { Role } from "@/db/schema";

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** The roles from least to most (client components read it too: nothing here reaches the database). */
export const ROLES_BY_RANK = (Object.keys(RANK) as Role[]).sort((a, b) => RANK[a] - RANK[b]);

export function roleAtLeast(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

export function lesserRole(a: Role, b: Role): Role {
  return RANK[a] <= RANK[b] ? a : b;
}

/**
 * Who is acting, and in which project: a signed-in user or an API token. `role` is the role in
 * `projectId` (lib/platform/auth/project-access.ts); every query a request makes is scoped to it.
 */
export interface Principal {
  kind: "user" | "token";
  id: string;
  /** Shown in audit rows and approval decisions. */
  label: string;
  role: Role;
  projectId: string;
  projectSlug: string;
  /** Keeps the instance: projects, people, providers, instance-wide hooks and settings. Never for a token. */
  instanceAdmin: boolean;
  userId?: string;
}

/** What a request may reach: instance-wide things need an instance admin. */
export type Access = Role | "instance";

export function principalHas(principal: Principal, needed: Access): boolean {
  return needed === "instance" ? principal.instanceAdmin : roleAtLeast(principal.role, needed);
}

export function accessRefusal(principal: Principal, needed: Access): string {
  return needed === "instance"
    ? "This needs an instance admin"
    : `This needs the ${needed} role in project ${principal.projectSlug}; you are ${principal.role}`;
}
