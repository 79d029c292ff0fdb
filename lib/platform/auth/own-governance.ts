/**
 * Nobody frees their own coding agents (issue 30, 4): a principal never decides an approval its
 * own agents' calls raised, and never changes the hooks or the agent that govern its own calls, or
 * the kill switch, whatever its role, unless another admin granted that person the right
 * explicitly in this project (self_governance_grants). So a credential an agent holds (a person's
 * API token in its environment, a token no person owns that sends hook events) cannot switch off
 * the guard that stopped it, and a person cannot approve their own agent's request. Every refusal
 * is in the audit log.
 *
 * "Own calls" are the bridged sessions recorded as the principal's (runs.actor_key): a person's
 * whatever credential sent them, a service account's, or a token's own when no person owns it.
 */
import type { Db } from "@/db/client";
import { audited, logAudit } from "@/db/queries/audit";
import { getUserSsoGroups, grantSelfGovernance, hasSelfGovernanceGrant, listGovernedAgentIds, revokeSelfGovernance } from "@/db/queries/self-governance";
import { getUserById } from "@/db/queries/users";
import { AppError } from "@/lib/platform/api/app-error";
import { actorKeyOf, type Principal } from "./roles";

export type GovernedTarget =
  /** A hook of a project (`owner`) or instance-wide (null), by its scope before or after a change. */
  | { kind: "hook"; owner: string | null; scope: string; id?: string }
  | { kind: "agent"; agentId: string; name: string }
  | { kind: "approval"; id: string; runActorKey: string | null }
  | { kind: "kill-switch" };

/** Whether a hook of `scope` holds for the principal's calls to the agents it has used. */
function hookGoverns(scope: string, agents: ReadonlySet<string>, principal: Principal, groups: readonly string[]): boolean {
  if (scope === "global") return agents.size > 0;
  const colon = scope.indexOf(":");
  const kind = scope.slice(0, colon);
  const ref = scope.slice(colon + 1);
  if (kind === "agent") return agents.has(ref);
  if (kind === "person") return ref === principal.userId;
  if (kind === "group") return groups.includes(ref);
  return false;
}

/**
 * Refuses (403, audited) when any target governs the principal's own calls and no grant exempts
 * them. Cheap when the principal never sent a hook event: one indexed read.
 */
export async function assertNotOwnGovernance(db: Db, principal: Principal, targets: readonly GovernedTarget[]): Promise<void> {
  if (targets.length === 0) return;
  const key = actorKeyOf(principal);
  const instanceWide = targets.some((t) => t.kind === "kill-switch" || (t.kind === "hook" && t.owner === null));
  const agents = new Set(await listGovernedAgentIds(db, { projectId: instanceWide ? null : principal.projectId, actorKey: key }));
  const ownApproval = targets.find((t) => t.kind === "approval" && t.runActorKey === key);
  if (agents.size === 0 && !ownApproval) return;
  const groups = principal.userId ? await getUserSsoGroups(db, { userId: principal.userId }) : [];
  const governing = targets.find((t) => {
    if (t.kind === "approval") return t.runActorKey === key;
    if (t.kind === "kill-switch") return agents.size > 0;
    if (t.kind === "agent") return agents.has(t.agentId);
    return hookGoverns(t.scope, agents, principal, groups);
  });
  if (!governing) return;
  if (principal.userId && (await hasSelfGovernanceGrant(db, { projectId: instanceWide ? null : principal.projectId, userId: principal.userId }))) return;
  const what =
    governing.kind === "approval"
      ? "decide an approval your own coding agent's call is waiting on"
      : governing.kind === "agent"
        ? `change agent ${governing.name}, whose rules govern your own coding agents' calls`
        : governing.kind === "kill-switch"
          ? "switch every hook off: they govern your own coding agents' calls"
          : `change a hook (scope ${governing.scope}) that governs your own coding agents' calls`;
  const reason = `You may not ${what}. Another admin can decide it, or grant you that right in this project (Settings → Members).`;
  await logAudit(db, {
    projectId: principal.projectId,
    actor: principal.label,
    action: "governance.self_refused",
    entityType: governing.kind === "kill-switch" ? "setting" : governing.kind,
    entityId: governing.kind === "hook" ? governing.id : governing.kind === "agent" ? governing.agentId : governing.kind === "approval" ? governing.id : "kill_switch",
    after: { reason },
  });
  throw AppError.forbidden(reason);
}

/**
 * An admin gives a named person the right to change the rules over their own coding agents and
 * decide their own agents' approvals in the request's project. Never oneself: a credential an
 * agent holds must not be able to free that agent (the first admin holds it from setup).
 */
export async function grantSelfGovernanceAudited(db: Db, principal: Principal, params: { userId: string }) {
  if (params.userId === principal.userId) throw AppError.forbidden("Another admin grants you this right: nobody grants it to themselves");
  if (!(await getUserById(db, { id: params.userId }))) throw AppError.notFound("Person");
  return audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "governance.self_granted", entityType: "user", entityId: params.userId },
    async (tx) => (await grantSelfGovernance(tx, { projectId: principal.projectId, userId: params.userId, grantedBy: principal.label })) ?? null,
    (row) => (row ? { after: { grantedBy: row.grantedBy } } : null),
  );
}

export async function revokeSelfGovernanceAudited(db: Db, principal: Principal, params: { userId: string }) {
  return audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "governance.self_revoked", entityType: "user", entityId: params.userId },
    async (tx) => (await revokeSelfGovernance(tx, { projectId: principal.projectId, userId: params.userId })) ?? null,
    (row) => (row ? { before: { grantedBy: row.grantedBy } } : null),
  );
}
