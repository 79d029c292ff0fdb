/**
 * Hook mutations with their versions and audit rows: the one path used by the API and the server
 * actions. Every change to a hook's spec is a new version; reordering changes only positions.
 */
import type { Db } from "@/db/client";
import { audited, type AuditEntry } from "@/db/queries/audit";
import {
  createHook,
  deleteHook,
  findHookByKey,
  getHookById,
  getHookVersion,
  hookToResource,
  listHooks,
  reorderHooks,
  updateHook,
  type HookOwner,
  type HookRow,
} from "@/db/queries/hooks";
import { AppError, validationError } from "@/lib/platform/api/app-error";
import { assertNotOwnGovernance } from "@/lib/platform/auth/own-governance";
import { roleAtLeast, type Principal } from "@/lib/platform/auth/roles";
import { parseHookSpec, type HookSpec } from "@/lib/core/hooks/spec";
import { actionRunsCode, SHELL_TOOL } from "@/lib/core/hooks/trust";
import { isUuid, type HookPatch, type ReorderHooksRequest } from "./schema";
import { resolveHookScope } from "./hook-scope";
import { specToText } from "./spec-text";

type ActionRef = { type: string; tool?: unknown };

/** Hooks that run code on the server (lib/core/hooks/trust.ts) are an admin's to create, change or delete. */
export function mayConfigureAction(principal: Pick<Principal, "role">, action: ActionRef): boolean {
  return !actionRunsCode(action) || roleAtLeast(principal.role, "admin");
}

/** What an admin-only action is, for the 403 message. */
export function describeCodeAction(action: ActionRef): string {
  if (action.type === "command") return "command hooks: they run shell commands on the server";
  if (action.type === "code") return "code hooks: they run modules from the operator's hooks folder";
  return `tool hooks that call the ${SHELL_TOOL} tool: they run shell commands on the server`;
}

/**
 * Refuses a change of a hook the principal may not configure: one that runs code, or a person's
 * exception (it waives the project's denies for that person: precedence is an admin's decision).
 */
function assertMayConfigure(principal: Principal, ...specs: { action: ActionRef; exception?: boolean }[]) {
  for (const { action, exception } of specs) {
    if (!mayConfigureAction(principal, action)) {
      throw AppError.forbidden(`Only admins may create or change ${describeCodeAction(action)}. You are ${principal.role}.`);
    }
    if (exception && !roleAtLeast(principal.role, "admin")) {
      throw AppError.forbidden(`Only admins may create, change or delete an exception: it waives the project's denies for a person. You are ${principal.role}.`);
    }
  }
}

function specOf(row: HookRow): HookSpec {
  return row.spec as unknown as HookSpec;
}

/** Instance-wide hooks are the instance admins' to keep: a project admin sees them, never changes them. */
function assertMayKeep(principal: Principal, owner: HookOwner) {
  if (owner === null && !principal.instanceAdmin) {
    throw AppError.forbidden("Instance-wide hooks are kept by instance admins; you may read this one, not change it");
  }
}

/** Whose hooks a request means: the instance's (`instance`, instance admins only) or its project's. */
export function hookOwnerFor(principal: Principal, instance: boolean | undefined): HookOwner {
  if (!instance) return principal.projectId;
  assertMayKeep(principal, null);
  return null;
}

/** A hook the principal's project sees (its own or an instance-wide one); another project's is a 404. */
export async function findHookOr404(db: Db, principal: Pick<Principal, "projectId">, id: string) {
  const row = isUuid(id) ? await getHookById(db, { projectId: principal.projectId, id }) : undefined;
  if (!row) throw AppError.notFound(`Hook "${id}"`);
  return row;
}

/** As findHookOr404, and refused (403) when the principal may not change it (an instance-wide hook). */
async function findKeptHookOr404(db: Db, principal: Principal, id: string) {
  const row = await findHookOr404(db, principal, id);
  assertMayKeep(principal, row.projectId);
  return row;
}

function keyConflict(spec: HookSpec) {
  return AppError.conflict(`A hook with the id "${spec.id}" already exists in scope ${spec.scope}`);
}

/** A project's hook, or with `instance` an instance-wide one (instance admins only). */
export async function createHookAudited(db: Db, principal: Principal, input: HookSpec, options: { instance?: boolean } = {}) {
  const owner = hookOwnerFor(principal, options.instance);
  assertMayConfigure(principal, input);
  // Resolved once: the scope the governance check judges is the one stored.
  const scope = await resolveHookScope(db, { projectId: owner, scope: input.scope });
  await assertNotOwnGovernance(db, principal, [{ kind: "hook", owner, scope }]);
  return audited(
    db,
    { projectId: owner, actor: principal.label, action: "hook.create", entityType: "hook" },
    async (tx) => {
      const spec = { ...input, scope };
      if (await findHookByKey(tx, { projectId: owner, scope: spec.scope, key: spec.id })) throw keyConflict(spec);
      const row = await createHook(tx, { projectId: owner, spec, actor: principal.label });
      if (!row) throw keyConflict(spec);
      return hookToResource(row);
    },
    (created) => ({ entityId: created.id, after: created }),
  );
}

type Saved = { saved: ReturnType<typeof hookToResource>; entry: AuditEntry | null };

/**
 * Refuses (audited, outside the change's transaction so the refusal stays recorded) a change of a
 * hook that governs, or would govern, the principal's own coding agents (own-governance.ts).
 */
async function assertMayChangeOwnGovernance(db: Db, principal: Principal, id: string, newScope?: string) {
  const existing = await findKeptHookOr404(db, principal, id);
  const targets = [{ kind: "hook" as const, owner: existing.projectId, scope: existing.scope, id: existing.id }];
  if (newScope !== undefined && newScope !== existing.scope) {
    targets.push({ kind: "hook", owner: existing.projectId, scope: await resolveHookScope(db, { projectId: existing.projectId, scope: newScope }), id: existing.id });
  }
  await assertNotOwnGovernance(db, principal, targets);
}

/** Runs `change` (which reads and writes through `tx`) and its audit row, if it made one, in one transaction. */
async function savedAudited(db: Db, principal: Principal, change: (tx: Db) => Promise<Saved>) {
  // saveNextVersion's entry names the hook's own owner (null for an instance-wide hook).
  const base = { projectId: principal.projectId, actor: principal.label, action: "hook.update", entityType: "hook" };
  return (await audited(db, base, change, (result) => result.entry)).saved;
}

/**
 * Stores `input` as the next version of `existing`. A spec identical to the current one changes
 * nothing, makes no version and no audit row.
 */
async function saveNextVersion(tx: Db, principal: Principal, existing: HookRow, input: HookSpec, auditAction: string, note?: object): Promise<Saved> {
  assertMayConfigure(principal, specOf(existing), input);
  // A hook whose agent was deleted can still be edited or disabled as long as its scope stays.
  const owner = existing.projectId;
  const scope = input.scope === existing.scope ? existing.scope : await resolveHookScope(tx, { projectId: owner, scope: input.scope });
  const spec = { ...input, scope };
  if (specToText(spec) === specToText(existing.spec)) return { saved: hookToResource(existing), entry: null };
  if (await findHookByKey(tx, { projectId: owner, scope, key: spec.id, exceptId: existing.id })) throw keyConflict(spec);
  const row = await updateHook(tx, { projectId: owner, id: existing.id, spec, actor: principal.label });
  if (!row) throw keyConflict(spec);
  const saved = hookToResource(row);
  const entry = {
    projectId: owner,
    actor: principal.label,
    action: auditAction,
    entityType: "hook",
    entityId: row.id,
    before: hookToResource(existing),
    after: { ...saved, ...note },
  };
  return { saved, entry };
}

/**
 * The editor's save: the whole hook replaces the current version. `expectedVersion` is the version
 * the editor was opened on, so a save never silently overwrites someone else's newer change.
 */
export async function replaceHookAudited(db: Db, principal: Principal, id: string, spec: HookSpec, options: { expectedVersion?: number } = {}) {
  await assertMayChangeOwnGovernance(db, principal, id, spec.scope);
  return savedAudited(db, principal, async (tx) => {
    const existing = await findKeptHookOr404(tx, principal, id);
    if (options.expectedVersion !== undefined && existing.version !== options.expectedVersion) {
      throw AppError.conflict(
        `This hook changed since you opened it (you edited version ${options.expectedVersion}, it is now at version ${existing.version}); reload to see the change`,
      );
    }
    return saveNextVersion(tx, principal, existing, spec, "hook.update");
  });
}

/** PATCH: the given fields over the current version (`null` clears one), validated as a whole. */
export async function patchHookAudited(db: Db, principal: Principal, id: string, patch: HookPatch) {
  await assertMayChangeOwnGovernance(db, principal, id, typeof patch.scope === "string" ? patch.scope : undefined);
  return savedAudited(db, principal, async (tx) => {
    const existing = await findKeptHookOr404(tx, principal, id);
    const merged: Record<string, unknown> = { ...existing.spec };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
    const parsed = parseHookSpec(merged);
    if (!parsed.success) throw validationError(parsed.error);
    return saveNextVersion(tx, principal, existing, parsed.data, "hook.update");
  });
}

export async function setHookEnabledAudited(db: Db, principal: Principal, id: string, enabled: boolean) {
  return patchHookAudited(db, principal, id, { enabled });
}

/** Makes an old version current again, as a new version (history is never rewritten). */
export async function restoreHookVersionAudited(db: Db, principal: Principal, id: string, version: number) {
  const current = await findKeptHookOr404(db, principal, id);
  const restoring = await getHookVersion(db, { hookId: current.id, version });
  const restoredScope = (restoring?.spec as { scope?: unknown } | undefined)?.scope;
  await assertMayChangeOwnGovernance(db, principal, id, typeof restoredScope === "string" ? restoredScope : undefined);
  return savedAudited(db, principal, async (tx) => {
    const existing = await findKeptHookOr404(tx, principal, id);
    const stored = await getHookVersion(tx, { hookId: existing.id, version });
    if (!stored) throw AppError.notFound(`Version ${version} of hook "${existing.key}"`);
    const parsed = parseHookSpec(stored.spec);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AppError("validation_failed", `Version ${version} is no longer a valid hook (${issue.path.join(".")}: ${issue.message}); edit the hook instead`);
    }
    return saveNextVersion(tx, principal, existing, parsed.data, "hook.restore", { restoredFrom: version });
  });
}

export async function deleteHookAudited(db: Db, principal: Principal, id: string) {
  await assertMayChangeOwnGovernance(db, principal, id);
  await audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "hook.delete", entityType: "hook" },
    async (tx) => {
      const existing = await findKeptHookOr404(tx, principal, id);
      assertMayConfigure(principal, specOf(existing));
      await deleteHook(tx, { projectId: existing.projectId, id: existing.id });
      return existing;
    },
    (existing) => ({ projectId: existing.projectId, entityId: existing.id, before: hookToResource(existing) }),
  );
}

/**
 * Sets the execution order of one scope of the project's hooks (or, with `instance`, of the
 * instance-wide ones); `ids` must name every hook of that scope once.
 */
export async function reorderHooksAudited(db: Db, principal: Principal, request: ReorderHooksRequest) {
  const owner = hookOwnerFor(principal, request.instance);
  // Moving a rule first changes what decides: the order of rules over one's own calls is not one's to change either.
  await assertNotOwnGovernance(db, principal, [{ kind: "hook", owner, scope: await resolveHookScope(db, { projectId: owner, scope: request.scope }) }]);
  return audited(
    db,
    { projectId: owner, actor: principal.label, action: "hook.reorder", entityType: "hook_scope" },
    async (tx) => {
      const scope = await resolveHookScope(tx, { projectId: owner, scope: request.scope });
      const result = await reorderHooks(tx, { projectId: owner, scope, ids: request.ids });
      if (!result.ok) {
        // An id this project cannot see (another project's hook, or none) is a 404, as everywhere.
        for (const id of request.ids.filter((id) => !result.before.includes(id))) {
          if (!(await getHookById(tx, { projectId: principal.projectId, id }))) throw AppError.notFound(`Hook "${id}"`);
        }
        const list = `GET /api/v1/hooks?scope=${scope}&instance=${owner === null}`;
        throw AppError.conflict(
          `The hooks of scope ${scope} are not the ones sent: list all ${result.before.length} of them, each once (${list}), and try again`,
        );
      }
      return { scope, result, items: (await listHooks(tx, { projectId: owner, own: true, scope })).map(hookToResource) };
    },
    ({ scope, result }) => ({ entityId: scope, before: result.beforeKeys, after: result.afterKeys }),
  ).then(({ scope, items }) => ({ scope, items }));
}

/**
 * Moves a hook one step up or down among `visibleIds` (the hooks the person sees, in order, e.g.
 * with an event filter on), so the step is the one they see even when hidden hooks sit between.
 */
export async function moveHookAudited(
  db: Db,
  principal: Principal,
  params: { id: string; direction: "up" | "down"; visibleIds?: string[] },
) {
  const hook = await findKeptHookOr404(db, principal, params.id);
  const order = (await listHooks(db, { projectId: hook.projectId, own: true, scope: hook.scope })).map((h) => h.id);
  const visible = (params.visibleIds ?? order).filter((id) => order.includes(id));
  const neighbour = visible[visible.indexOf(hook.id) + (params.direction === "up" ? -1 : 1)];
  if (!neighbour || !visible.includes(hook.id)) return { scope: hook.scope, moved: false };
  const ids = order.filter((id) => id !== hook.id);
  const at = ids.indexOf(neighbour) + (params.direction === "up" ? 0 : 1);
  ids.splice(at, 0, hook.id);
  await reorderHooksAudited(db, principal, { scope: hook.scope, instance: hook.projectId === null, ids });
  return { scope: hook.scope, moved: true };
}
