/**
 * Agent mutations with their audit rows: the one path used by the API and the server actions.
 */
import type { Db } from "@/db/client";
import { agentToSpec, createAgent, deleteAgent, getAgent, updateAgent } from "@/db/queries/agents";
import { logAudit } from "@/db/queries/audit";
import { deleteHooksOfScope } from "@/db/queries/hooks";
import { ApiError } from "@/lib/api/errors";
import type { Principal } from "@/lib/auth/roles";
import type { AgentSpec } from "./agent-spec";

export async function findAgentOr404(db: Db, ref: string) {
  const row = await getAgent(db, { ref });
  if (!row) throw ApiError.notFound(`Agent "${ref}"`);
  return row;
}

export async function createAgentAudited(db: Db, principal: Principal, spec: AgentSpec) {
  const row = await createAgent(db, { spec });
  if (!row) throw ApiError.conflict(`An agent named "${spec.name}" already exists`);
  await logAudit(db, { actor: principal.label, action: "agent.create", entityType: "agent", entityId: row.id, after: spec });
  return agentToSpec(row);
}

export async function updateAgentAudited(
  db: Db,
  principal: Principal,
  ref: string,
  patch: Partial<AgentSpec>,
  options: { replace?: boolean } = {},
) {
  const existing = await findAgentOr404(db, ref);
  if (patch.name && patch.name !== existing.name) {
    const clash = await getAgent(db, { ref: patch.name });
    if (clash) throw ApiError.conflict(`An agent named "${patch.name}" already exists`);
  }
  const row = await updateAgent(db, { id: existing.id, patch, replace: options.replace });
  await logAudit(db, {
    actor: principal.label,
    action: "agent.update",
    entityType: "agent",
    entityId: row.id,
    before: agentToSpec(existing),
    after: agentToSpec(row),
  });
  return agentToSpec(row);
}

export async function deleteAgentAudited(db: Db, principal: Principal, ref: string) {
  const existing = await findAgentOr404(db, ref);
  await deleteAgent(db, { id: existing.id });
  // Its hooks would never run again; remove them with it, each in the audit trail.
  const removed = await deleteHooksOfScope(db, { scope: `agent:${existing.id}` });
  await logAudit(db, {
    actor: principal.label,
    action: "agent.delete",
    entityType: "agent",
    entityId: existing.id,
    before: { ...agentToSpec(existing), hooks: removed.map((h) => h.spec) },
  });
}
