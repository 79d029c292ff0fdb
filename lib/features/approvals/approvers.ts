/**
 * Who may decide an approval. An approve hook may name approver groups (`approvers: {users,
 * roles}`), copied onto the approval when it is asked: then only those people decide, through the
 * API, the dashboard, a link or Slack. Without approvers, an operator or admin decides (as
 * before), and a decision link decides as whoever it was sent to: holding it is the permission.
 *
 * A person is named by email, or by username: the part of their email before the `@` (Hookplane
 * accounts have no other name). Pure: the approval cards use it to say why a button is off.
 */
import type { ApproverGroups, Role } from "@/db/schema";
import { roleAtLeast } from "@/lib/platform/auth/roles";

/** Who is deciding, as far as it is known: a person's email and role, or only a label (a channel). */
export interface DeciderIdentity {
  email?: string;
  role?: Role;
}

export function hasApprovers(groups: ApproverGroups | null | undefined): groups is ApproverGroups {
  return Boolean(groups && ((groups.users?.length ?? 0) > 0 || (groups.roles?.length ?? 0) > 0));
}

export function namesPerson(entry: string, email: string): boolean {
  const wanted = entry.toLowerCase();
  return wanted.includes("@") ? wanted === email : wanted === email.slice(0, email.indexOf("@"));
}

export function inApproverGroups(groups: ApproverGroups, who: DeciderIdentity): boolean {
  const email = who.email?.toLowerCase();
  if (email && groups.users?.some((entry) => namesPerson(entry, email))) return true;
  return who.role !== undefined && (groups.roles ?? []).includes(who.role);
}

/** How the approvers read in a refusal: "alice@example.com, bob, or an admin". */
export function describeApprovers(groups: ApproverGroups): string {
  const names = [...(groups.users ?? []), ...(groups.roles ?? []).map((r) => `any ${r}`)];
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

/**
 * Why `who` may not decide, or undefined when they may. `withoutApprovers` is what an approval
 * with no approvers asks: an operator (API, dashboard, Slack) or nothing (a link, which was sent).
 */
export function decisionRefusal(groups: ApproverGroups | null | undefined, who: DeciderIdentity, withoutApprovers: "operator" | "link"): string | undefined {
  if (hasApprovers(groups)) {
    return inApproverGroups(groups, who) ? undefined : `Only ${describeApprovers(groups)} may decide this approval`;
  }
  if (withoutApprovers === "link") return undefined;
  if (who.role && roleAtLeast(who.role, "operator")) return undefined;
  return `Deciding an approval needs the operator role${who.role ? `; you are ${who.role}` : ""}`;
}
