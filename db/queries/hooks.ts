import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import type { HookSpec } from "@/lib/hooks/spec";
import type { Db } from "../client";
import { hookVersions, hooks } from "../schema";

export type HookRow = typeof hooks.$inferSelect;

/** Inserts a hook at the end of its scope, with version 1 in its history. */
export async function createHook(db: Db, params: { spec: HookSpec; actor: string }) {
  return db.transaction(async (tx) => {
    const [{ next }] = await tx
      .select({ next: sql<number>`coalesce(max(${hooks.position}), -1) + 1` })
      .from(hooks)
      .where(eq(hooks.scope, params.spec.scope));
    const [row] = await tx
      .insert(hooks)
      .values({
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

/** Hooks of the given scopes in execution order: global, then agent, then schedule. */
export async function listHooksForScopes(db: Db, params: { scopes: string[] }) {
  if (params.scopes.length === 0) return [];
  const rows = await db.select().from(hooks).where(inArray(hooks.scope, params.scopes)).orderBy(asc(hooks.position));
  const rank = (scope: string) => params.scopes.indexOf(scope);
  return rows.sort((a, b) => rank(a.scope) - rank(b.scope) || a.position - b.position);
}

export async function listHooks(db: Db, params: { scope?: string; event?: string } = {}) {
  const where = [];
  if (params.scope) where.push(eq(hooks.scope, params.scope));
  if (params.event) where.push(eq(hooks.event, params.event));
  return db
    .select()
    .from(hooks)
    .where(where.length ? and(...where) : undefined)
    .orderBy(asc(hooks.scope), asc(hooks.position));
}

export async function listHookVersions(db: Db, params: { hookId: string }) {
  return db.select().from(hookVersions).where(eq(hookVersions.hookId, params.hookId)).orderBy(desc(hookVersions.version));
}
