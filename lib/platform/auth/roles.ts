import type { Role } from "@/db/schema";

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export function roleAtLeast(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

export function lesserRole(a: Role, b: Role): Role {
  return RANK[a] <= RANK[b] ? a : b;
}

/** Who is acting: a signed-in user or an API token. */
export interface Principal {
  kind: "user" | "token";
  id: string;
  /** Shown in audit rows and approval decisions. */
  label: string;
  role: Role;
  userId?: string;
}
