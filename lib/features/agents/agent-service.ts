/**
 * Agent mutations with their audit rows: the one path used by the API and the server actions.
 */
import type { Db } from "@/db/client";
import { agentToSpec, createAgent, deleteAgent, getAgent, updateAgent } from "@/db/queries/agents";
import { audited } from "@/db/queries/audit";
import { deleteHooksOfScope } from "@/db/queries/hooks";
import { AppError } from "@/lib/platform/api/app-error";
import { roleAtLeast, type Principal } from "@/lib/platform/auth/roles";
import { mayConfigureAction } from "@/lib/features/hooks/hook-service";
import { assertNotOwnGovernance } from "@/lib/platform/auth/own-governance";
import { SHELL_TOOL, toolsRunCode } from "@/lib/core/hooks/trust";
import type { AgentSpec } from "@/lib/core/agent/agent-spec";

const sameIds = (a: readonly string[] | null | undefined, b: readonly string[] | null | undefined) =>
  JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/**
 * Which of the operator's code hooks run is an admin's call, as for a `code` hook (hook-model.md,
 * Trust): they run modules from the operator's hooks folder, and dropping one (a redactor) is as
 * much a change as adding one. `before` is the agent's current list (undefined for a new agent).
 */
export function assertMaySetCodeHooks(principal: Pick<Principal, "role">, before: readonly string[] | null | undefined, after: readonly string[] | null | undefined, what: string) {
  if (sameIds(before, after) || mayConfigureAction(principal, { type: "code" })) return;
  throw AppError.forbidden(`Only admins may choose ${what} code hooks: they run modules from the operator's hooks folder. You are ${principal.role}.`);
}

/**
 * An agent offered the shell tool (by name or `*`) runs commands on the server: only an admin
 * creates one, gives an agent the shell, or changes any field of one that has it (its
 * instructions and script steer the shell as much as the tool list does).
 */
export function assertMayConfigureAgent(principal: Pick<Principal, "role">, name: string, before: { tools?: readonly string[] | null } | undefined, after: { tools?: readonly string[] | null }) {
  if (roleAtLeast(principal.role, "admin") || (!toolsRunCode(before?.tools) && !toolsRunCode(after.tools))) return;
  throw AppError.forbidden(
    `Only admins may create or change an agent with the ${SHELL_TOOL} tool (${name}): it runs shell commands on the server. You are ${principal.role}.`,
  );
}

/**
 * How long an agent's runs are kept is an admin's call, as deleting a run is: a shorter window
 * deletes runs. `before` is the agent's current value (undefined for a new agent).
 */
export function assertMaySetRetention(principal: Pick<Principal, "role">, before: number | null | undefined, after: number | null | undefined) {
  if ((before ?? undefined) === (after ?? undefined) || roleAtLeast(principal.role, "admin")) return;
  throw AppError.forbidden(`Only admins may change how long an agent's runs are kept (retentionDays): a shorter window deletes runs. You are ${principal.role}.`);
}

/**
 * What an agent's coding agents do while Hookplane cannot answer is an admin's call too: "open"
 * lets every gated call run ungoverned during an outage, and clearing it hands the choice to each
 * developer's own `--fail-open`.
 */
export function assertMaySetFailMode(principal: Pick<Principal, "role">, before: string | null | undefined, after: string | null | undefined) {
  if ((before ?? undefined) === (after ?? undefined) || roleAtLeast(principal.role, "admin")) return;
  throw AppError.forbidden(`Only admins may change what this agent's coding agents do when Hookplane cannot answer (failMode). You are ${principal.role}.`);
}

/** The project's agent by id or name; another project's is a 404, as one that does not exist. */
export async function findAgentOr404(db: Db, projectId: string, ref: string) {
  const row = await getAgent(db, { projectId, ref });
  if (!row) throw AppError.notFound(`Agent "${ref}"`);
  return row;
}

export async function createAgentAudited(db: Db, principal: Principal, spec: AgentSpec) {
  assertMaySetCodeHooks(principal, undefined, spec.codeHooks, "an agent's");
  assertMayConfigureAgent(principal, spec.name, undefined, spec);
  assertMaySetRetention(principal, undefined, spec.retentionDays);
  assertMaySetFailMode(principal, undefined, spec.failMode);
  const row = await audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "agent.create", entityType: "agent", after: spec },
    async (tx) => {
      const created = await createAgent(tx, { projectId: principal.projectId, spec });
      if (!created) throw AppError.conflict(`An agent named "${spec.name}" already exists`);
      return created;
    },
    (created) => ({ entityId: created.id }),
  );
  return agentToSpec(row);
}

export async function updateAgentAudited(
  db: Db,
  principal: Principal,
  ref: string,
  patch: Partial<AgentSpec>,
  options: { replace?: boolean } = {},
) {
  const target = await findAgentOr404(db, principal.projectId, ref);
  await assertNotOwnGovernance(db, principal, [{ kind: "agent", agentId: target.id, name: target.name }]);
  const { updated } = await audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "agent.update", entityType: "agent" },
    async (tx) => {
      const existing = await findAgentOr404(tx, principal.projectId, ref);
      // A patch that leaves tools out keeps them, unless it replaces the whole agent.
      assertMayConfigureAgent(principal, existing.name, existing, { tools: "tools" in patch || options.replace ? patch.tools : existing.tools });
      // A patch that leaves codeHooks out keeps them, unless it replaces the whole agent.
      if ("codeHooks" in patch || options.replace) assertMaySetCodeHooks(principal, existing.codeHooks, patch.codeHooks, "an agent's");
      if ("retentionDays" in patch || options.replace) assertMaySetRetention(principal, existing.retentionDays, patch.retentionDays);
      if ("failMode" in patch || options.replace) assertMaySetFailMode(principal, existing.failMode, patch.failMode);
      if (patch.name && patch.name !== existing.name) {
        const clash = await getAgent(tx, { projectId: principal.projectId, ref: patch.name });
        if (clash) throw AppError.conflict(`An agent named "${patch.name}" already exists`);
      }
      return { existing, updated: await updateAgent(tx, { projectId: principal.projectId, id: existing.id, patch, replace: options.replace }) };
    },
    ({ existing, updated }) => ({ entityId: updated.id, before: agentToSpec(existing), after: agentToSpec(updated) }),
  );
  return agentToSpec(updated);
}

export async function deleteAgentAudited(db: Db, principal: Principal, ref: string) {
  const target = await findAgentOr404(db, principal.projectId, ref);
  await assertNotOwnGovernance(db, principal, [{ kind: "agent", agentId: target.id, name: target.name }]);
  await audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "agent.delete", entityType: "agent" },
    async (tx) => {
      const existing = await findAgentOr404(tx, principal.projectId, ref);
      await deleteAgent(tx, { projectId: principal.projectId, id: existing.id });
      // Its hooks would never run again; remove them with it, each in the audit trail.
      return { existing, removed: await deleteHooksOfScope(tx, { projectId: principal.projectId, scope: `agent:${existing.id}` }) };
    },
    ({ existing, removed }) => ({ entityId: existing.id, before: { ...agentToSpec(existing), hooks: removed.map((h) => h.spec) } }),
  );
}
