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
  /** The person's email (a user, or a token's owner). */
  email?: string;
  /** The person's single sign-on groups (a bridge credential's owner): what hooks' group scopes read. */
  groups?: string[];
  /**
   * A bridge credential: it sends its person's hook events (the ingest endpoints) and reaches
   * nothing else, whatever its owner's role (bridge-credentials.ts).
   */
  bridge?: boolean;
  /** A service account's token (service-accounts.ts): the account acts, named on every record. */
  serviceAccount?: { id: string; name: string };
}

/**
 * What a request may reach: instance-wide things need an instance admin; `ingest` (a coding agent's
 * hook events) a bridge credential, or an operator that names someone (a person, or a service
 * account's token).
 */
export type Access = Role | "instance" | "ingest";

export function principalHas(principal: Principal, needed: Access): boolean {
  if (needed === "ingest") return principal.bridge === true || (roleAtLeast(principal.role, "operator") && namesSomeone(principal));
  // A bridge credential reaches the ingest endpoints only: its person's agents cannot read others'
  // runs or edit the hooks that govern them.
  if (principal.bridge) return false;
  return needed === "instance" ? principal.instanceAdmin : roleAtLeast(principal.role, needed);
}

/**
 * Whether what a principal sends is recorded as someone's: a person (signed in, or the owner of the
 * token) or a service account. A token no one owns (made before tokens had owners) names no one, so
 * it sends no hook events: every bridged call's record says who acted (issue 27).
 */
function namesSomeone(principal: Principal): boolean {
  return principal.userId !== undefined || principal.serviceAccount !== undefined;
}

export function accessRefusal(principal: Principal, needed: Access): string {
  if (principal.bridge) return "A bridge credential only sends its person's hook events (POST /api/v1/ingest/...)";
  if (needed === "ingest" && roleAtLeast(principal.role, "operator") && !namesSomeone(principal)) {
    return `Token ${principal.label} belongs to no person or service account, so the hook events it sent would be recorded as no one's: use a bridge credential (hookplane login, or Settings → Bridge credentials) or a service account's token`;
  }
  if (needed === "ingest") return `Sending hook events needs a bridge credential or the operator role in project ${principal.projectSlug}; you are ${principal.role}`;
  return needed === "instance"
    ? "This needs an instance admin"
    : `This needs the ${needed} role in project ${principal.projectSlug}; you are ${principal.role}`;
}

/**
 * The key a principal's own bridged calls are recorded under (runs.actor_key, the ledger's): a
 * person's whatever credential they use, a service account's, or a token's own when no person owns it.
 */
export function actorKeyOf(principal: Pick<Principal, "userId" | "serviceAccount" | "id">): string {
  if (principal.userId) return `user:${principal.userId}`;
  if (principal.serviceAccount) return `service:${principal.serviceAccount.id}`;
  return `token:${principal.id}`;
}
