import { and, asc, desc, eq, inArray, isNull, like, lt, ne, or, sql, type SQL } from "drizzle-orm";
import type { HookSpec } from "@/lib/core/hooks/spec";
import type { Db } from "../client";
import { hookVersions, hooks } from "../schema";

export type HookRow = typeof hooks.$inferSelect;
export type HookVersionRow = typeof hookVersions.$inferSelect;

/**
 * Whose hooks: a project's (its uuid), or null for the instance-wide ones, which instance admins
 * keep and every project's runs meet before the project's own.
 */
export type HookOwner = string | null;

/** Rows of exactly this owner (`project_id is null` for the instance's). */
function ownedBy(owner: HookOwner): SQL {
  return owner === null ? isNull(hooks.projectId) : eq(hooks.projectId, owner);
}

/** What a project sees: its own hooks and the instance-wide ones. */
function visibleIn(projectId: string): SQL {
  return or(isNull(hooks.projectId), eq(hooks.projectId, projectId))!;
}

/** What the API answers for a hook (api.md); `key` is the spec's own id, `id` the row's uuid. */
export interface HookResource {
  id: string;
  /** An instance-wide hook: kept by instance admins, met by every project's runs first. */
  instance: boolean;
  key: string;
  scope: string;
  position: number;
  version: number;
  enabled: boolean;
  spec: HookSpec;
  createdAt: Date;
  updatedAt: Date;
}

export function hookToResource(row: HookRow): HookResource {
  return {
    id: row.id,
    instance: row.projectId === null,
    key: row.key,
    scope: row.scope,
    position: row.position,
    version: row.version,
    enabled: row.enabled,
    spec: row.spec as unknown as HookSpec,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Instance-wide hooks come before a project's own, in lists as in runs. */
const ownerRank = sql<number>`(case when ${hooks.projectId} is null then 0 else 1 end)`;

/** Execution order of scopes (hook-model.md, Precedence): global, group, person, agent, schedule. */
const scopeRank = sql<number>`(case when ${hooks.scope} = 'global' then 0 when ${hooks.scope} like 'group:%' then 1 when ${hooks.scope} like 'person:%' then 2 when ${hooks.scope} like 'agent:%' then 3 else 4 end)`;

export function scopeRankOf(scope: string): number {
  if (scope === "global") return 0;
  if (scope.startsWith("group:")) return 1;
  if (scope.startsWith("person:")) return 2;
  return scope.startsWith("agent:") ? 3 : 4;
}

/** The sort key of a hook in a list, and so the content of a list cursor. */
export type HookListKey = [owner: number, rank: number, scope: string, position: number, id: string];

export function hookListKey(row: HookRow): HookListKey {
  return [row.projectId === null ? 0 : 1, scopeRankOf(row.scope), row.scope, row.position, row.id];
}

function nextPositionIn(owner: HookOwner, scope: string) {
  return sql<number>`(select coalesce(max(${hooks.position}), -1) + 1 from ${hooks} where ${hooks.scope} = ${scope} and ${ownedBy(owner)})`;
}

/** PostgreSQL's unique_violation, whether drizzle wraps the driver's error or not. */
function isUniqueViolation(error: unknown): boolean {
  for (let e = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}

/** Inserts a hook at the end of its owner's scope, with version 1 in its history. */
export async function createHook(db: Db, params: { projectId: HookOwner; spec: HookSpec; actor: string }) {
  return db.transaction(async (tx) => {
    const [{ next }] = await tx
      .select({ next: sql<number>`coalesce(max(${hooks.position}), -1) + 1` })
      .from(hooks)
      .where(and(eq(hooks.scope, params.spec.scope), ownedBy(params.projectId)));
    const [row] = await tx
      .insert(hooks)
      .values({
        projectId: params.projectId,
        key: params.spec.id,
        scope: params.spec.scope,
        event: params.spec.event,
        enabled: params.spec.enabled,
        position: Number(next),
        spec: params.spec as unknown as Record<string, unknown>,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) return undefined;
    await tx.insert(hookVersions).values({ hookId: row.id, version: 1, spec: row.spec, createdBy: params.actor });
    return row;
  });
}

/**
 * Stores `spec` as the hook's next version and records it in the history. A hook that moves to
 * another scope goes to the end of it. Undefined when another hook of that scope has the same key.
 */
export async function updateHook(db: Db, params: { projectId: HookOwner; id: string; spec: HookSpec; actor: string }) {
  try {
    return await db.transaction(async (tx) => {
      const [current] = await tx
        .select({ scope: hooks.scope })
        .from(hooks)
        .where(and(eq(hooks.id, params.id), ownedBy(params.projectId)))
        .for("update");
      if (!current) return undefined;
      const [row] = await tx
        .update(hooks)
        .set({
          key: params.spec.id,
          scope: params.spec.scope,
          event: params.spec.event,
          enabled: params.spec.enabled,
          spec: params.spec as unknown as Record<string, unknown>,
          version: sql`${hooks.version} + 1`,
          updatedAt: new Date(),
          ...(current.scope === params.spec.scope ? {} : { position: nextPositionIn(params.projectId, params.spec.scope) }),
        })
        .where(eq(hooks.id, params.id))
        .returning();
      await tx.insert(hookVersions).values({ hookId: row.id, version: row.version, spec: row.spec, createdBy: params.actor });
      return row;
    });
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

/** A hook `projectId` sees: its own or an instance-wide one (another project's: undefined). */
export async function getHookById(db: Db, params: { projectId: string; id: string }) {
  const [row] = await db.select().from(hooks).where(and(eq(hooks.id, params.id), visibleIn(params.projectId)));
  return row;
}

/** The owner's hook with this key in this scope, other than `exceptId` (to report a clash before writing). */
export async function findHookByKey(db: Db, params: { projectId: HookOwner; scope: string; key: string; exceptId?: string }) {
  const where = [ownedBy(params.projectId), eq(hooks.scope, params.scope), eq(hooks.key, params.key)];
  if (params.exceptId) where.push(ne(hooks.id, params.exceptId));
  const [row] = await db.select().from(hooks).where(and(...where));
  return row;
}

export async function deleteHook(db: Db, params: { projectId: HookOwner; id: string }) {
  const [row] = await db
    .delete(hooks)
    .where(and(eq(hooks.id, params.id), ownedBy(params.projectId)))
    .returning();
  return row;
}

/**
 * The hooks a run of `projectId` meets for the given scopes, in execution order: the instance-wide
 * ones first, then the project's own; within each, by the order of `scopes`, then position.
 */
/**
 * The hooks of `scopes` and every group and person rule of the project (which of those hold for a
 * call is the runtime's question: it knows the person behind it), in execution order.
 */
export async function listHooksForScopes(db: Db, params: { projectId: string; scopes: string[] }) {
  if (params.scopes.length === 0) return [];
  const rows = await db
    .select()
    .from(hooks)
    .where(and(or(inArray(hooks.scope, params.scopes), like(hooks.scope, "group:%"), like(hooks.scope, "person:%")), visibleIn(params.projectId)))
    .orderBy(asc(hooks.position));
  const owner = (row: HookRow) => (row.projectId === null ? 0 : 1);
  const rank = (scope: string) => {
    const given = params.scopes.indexOf(scope);
    return given >= 0 ? scopeRankOf(scope) * 1000 + given : scopeRankOf(scope) * 1000;
  };
  return rows.sort((a, b) => owner(a) - owner(b) || rank(a.scope) - rank(b.scope) || a.scope.localeCompare(b.scope) || a.position - b.position);
}

/**
 * Hooks in execution order (instance-wide first, then scope rank, scope, position), optionally
 * filtered, optionally one page after a list key. Without `limit` every matching hook is returned.
 * `projectId` a project: its hooks and the instance-wide ones (`own` true: only its own);
 * null: only the instance-wide ones.
 */
export async function listHooks(
  db: Db,
  params: { projectId: HookOwner; own?: boolean; scope?: string; event?: string; after?: HookListKey; limit?: number },
) {
  const where: SQL[] = [params.projectId === null || params.own ? ownedBy(params.projectId) : visibleIn(params.projectId)];
  if (params.scope) where.push(eq(hooks.scope, params.scope));
  if (params.event) where.push(eq(hooks.event, params.event));
  if (params.after) {
    const [owner, rank, scope, position, id] = params.after;
    where.push(
      sql`(${ownerRank}, ${scopeRank}, ${hooks.scope}, ${hooks.position}, ${hooks.id}) > (${owner}::int, ${rank}::int, ${scope}::text, ${position}::int, ${id}::uuid)`,
    );
  }
  const query = db
    .select()
    .from(hooks)
    .where(and(...where))
    .orderBy(ownerRank, scopeRank, asc(hooks.scope), asc(hooks.position), asc(hooks.id));
  return params.limit === undefined ? query : query.limit(params.limit);
}

/** Newest first; `beforeVersion` pages back through older ones. Each as GET /api/v1/hooks/{id}/versions sends it. */
export async function listHookVersions(db: Db, params: { hookId: string; limit?: number; beforeVersion?: number }) {
  const where = [eq(hookVersions.hookId, params.hookId)];
  if (params.beforeVersion !== undefined) where.push(lt(hookVersions.version, params.beforeVersion));
  const query = db
    .select({ version: hookVersions.version, spec: hookVersions.spec, createdBy: hookVersions.createdBy, createdAt: hookVersions.createdAt })
    .from(hookVersions)
    .where(and(...where))
    .orderBy(desc(hookVersions.version));
  return params.limit === undefined ? query : query.limit(params.limit);
}

export async function getHookVersion(db: Db, params: { hookId: string; version: number }) {
  const [row] = await db
    .select()
    .from(hookVersions)
    .where(and(eq(hookVersions.hookId, params.hookId), eq(hookVersions.version, params.version)));
  return row;
}

/**
 * Sets the order of one owner's scope's hooks to `ids`. Refused (`stale`) unless `ids` names exactly
 * the hooks the scope has now, so two people reordering at once cannot lose a hook's place silently.
 */
export async function reorderHooks(db: Db, params: { projectId: HookOwner; scope: string; ids: string[] }) {
  return db.transaction(async (tx) => {
    const current = await tx
      .select({ id: hooks.id, key: hooks.key })
      .from(hooks)
      .where(and(eq(hooks.scope, params.scope), ownedBy(params.projectId)))
      .orderBy(asc(hooks.position))
      .for("update");
    const before = current.map((h) => h.id);
    const same = before.length === params.ids.length && params.ids.every((id) => before.includes(id));
    if (!same) return { ok: false as const, before };
    for (const [position, id] of params.ids.entries()) {
      await tx.update(hooks).set({ position }).where(eq(hooks.id, id));
    }
    const keyOf = new Map(current.map((h) => [h.id, h.key]));
    return { ok: true as const, beforeKeys: before.map((id) => keyOf.get(id)!), afterKeys: params.ids.map((id) => keyOf.get(id)!) };
  });
}

/** Removes every hook of a project's scope (its agent or schedule is gone); returns what was removed. */
export async function deleteHooksOfScope(db: Db, params: { projectId: string; scope: string }) {
  return db
    .delete(hooks)
    .where(and(eq(hooks.scope, params.scope), eq(hooks.projectId, params.projectId)))
    .returning();
}

/** The groups a project's rules are bound to (`group:<name>`), so the editor offers them again. */
export async function listGroupScopes(db: Db, params: { projectId: string }): Promise<string[]> {
  const rows = await db
    .selectDistinct({ scope: hooks.scope })
    .from(hooks)
    .where(and(eq(hooks.projectId, params.projectId), like(hooks.scope, "group:%")));
  return rows.map((r) => r.scope.slice("group:".length));
}
