/**
 * Hook health over a window, read from the hook ledger: how often each hook fired, blocked and
 * failed, and its last error. A hook is known in the ledger by its (scope, key), which is unique per
 * owner (db/schema.ts `hooks_project_scope_key_uq`); rows are counted for one project only (an
 * instance-wide hook's health here is its health in this project's runs).
 *
 * Cheap on a large ledger: the counts read `hook_invocations_hook_idx` (hook_key, created_at) for
 * the keys asked; the failing-hooks list reads `hook_invocations_failures_idx`, which holds only
 * failed or timed-out rows. No migration: both indexes exist.
 */
import { and, desc, eq, gte, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { hookInvocations, hooks } from "../schema";

export interface HookHealth {
  scope: string;
  hookKey: string;
  /** Ledger rows where the hook ran (matched). */
  fired: number;
  /** Blocks that took effect (shadow blocks and blocks on informational events are not counted). */
  blocked: number;
  /** Runs of the hook that erred or timed out (whatever its onFailure made of it). */
  failed: number;
  lastFiredAt: Date | null;
  /** Its most recent run failed: it is failing now, not only once in the window. */
  failingNow: boolean;
  lastError: string | null;
  lastErrorAt: Date | null;
}

export const healthKey = (scope: string, hookKey: string) => `${scope}\u0000${hookKey}`;

const failedRow = sql`(${hookInvocations.failed} or ${hookInvocations.timedOut})`;
/** What a failure said: the reason its executor gave, else its stderr, else its output. */
const errorText = sql<string | null>`coalesce(${hookInvocations.reason}, nullif(${hookInvocations.stderr}, ''), ${hookInvocations.output})`;

/** The newest failure of each (scope, key) among the rows `where` selects, keyed by healthKey. */
async function lastErrorsOf(db: Db, where: SQL | undefined) {
  const rows = await db
    .selectDistinctOn([hookInvocations.scope, hookInvocations.hookKey], {
      scope: sql<string>`coalesce(${hookInvocations.scope}, '')`,
      hookKey: hookInvocations.hookKey,
      error: errorText,
      at: hookInvocations.createdAt,
    })
    .from(hookInvocations)
    .where(and(where, failedRow))
    .orderBy(hookInvocations.scope, hookInvocations.hookKey, desc(hookInvocations.id));
  return new Map(rows.map((e) => [healthKey(e.scope, e.hookKey), e]));
}

/**
 * The health of the given hooks in `projectId`'s ledger since `since`, keyed by `healthKey(scope, key)`.
 * A hook with no row in the window has no entry (it did not fire).
 */
export async function getHookHealth(
  db: Db,
  params: { projectId: string; hooks: { scope: string; key: string }[]; since: Date },
): Promise<Map<string, HookHealth>> {
  const result = new Map<string, HookHealth>();
  const keys = [...new Set(params.hooks.map((h) => h.key))];
  if (keys.length === 0) return result;
  const wanted = new Set(params.hooks.map((h) => healthKey(h.scope, h.key)));
  const window = and(eq(hookInvocations.projectId, params.projectId), inArray(hookInvocations.hookKey, keys), gte(hookInvocations.createdAt, params.since));

  const [counts, lastErrors] = await Promise.all([
    db
      .select({
        scope: sql<string>`coalesce(${hookInvocations.scope}, '')`,
        hookKey: hookInvocations.hookKey,
        fired: sql<number>`(count(*) filter (where ${hookInvocations.matched}))::int`,
        blocked: sql<number>`(count(*) filter (where ${hookInvocations.verdict} = 'block' and not ${hookInvocations.ignored}))::int`,
        failed: sql<number>`(count(*) filter (where ${failedRow}))::int`,
        lastFiredAt: sql<string | null>`max(${hookInvocations.createdAt}) filter (where ${hookInvocations.matched})`,
        // Ids follow insertion: the newest run of the hook failed when it is also the newest failure.
        lastFiredId: sql<string | null>`(max(${hookInvocations.id}) filter (where ${hookInvocations.matched}))::text`,
        lastFailedId: sql<string | null>`(max(${hookInvocations.id}) filter (where ${failedRow}))::text`,
      })
      .from(hookInvocations)
      .where(window)
      .groupBy(hookInvocations.scope, hookInvocations.hookKey),
    lastErrorsOf(db, window),
  ]);

  for (const row of counts) {
    const key = healthKey(row.scope, row.hookKey);
    if (!wanted.has(key)) continue;
    const error = lastErrors.get(key);
    result.set(key, {
      scope: row.scope,
      hookKey: row.hookKey,
      fired: row.fired,
      blocked: row.blocked,
      failed: row.failed,
      lastFiredAt: row.lastFiredAt ? new Date(row.lastFiredAt) : null,
      failingNow: row.lastFailedId !== null && row.lastFailedId === row.lastFiredId,
      lastError: error?.error ?? null,
      lastErrorAt: error?.at ?? null,
    });
  }
  return result;
}

export interface FailingHook {
  /** The hook's row, when it still exists in this project or instance-wide (for a link). */
  hookId: string | null;
  scope: string;
  hookKey: string;
  failed: number;
  lastError: string | null;
  lastErrorAt: Date;
}

/**
 * The hooks of a project that failed or timed out since `since`, most failures first: what the home
 * page lists. Reads only failed rows (a partial index holds exactly those).
 */
export async function listFailingHooks(db: Db, params: { projectId: string; since: Date; limit: number }): Promise<FailingHook[]> {
  const rows = await db
    .select({
      scope: sql<string>`coalesce(${hookInvocations.scope}, '')`,
      hookKey: hookInvocations.hookKey,
      failed: sql<number>`count(*)::int`,
      lastErrorAt: sql<string>`max(${hookInvocations.createdAt})`,
    })
    .from(hookInvocations)
    .where(and(eq(hookInvocations.projectId, params.projectId), gte(hookInvocations.createdAt, params.since), failedRow))
    .groupBy(hookInvocations.scope, hookInvocations.hookKey)
    .orderBy(desc(sql`3`), desc(sql`4`))
    .limit(params.limit);
  if (rows.length === 0) return [];
  const keys = [...new Set(rows.map((r) => r.hookKey))];
  const [found, errors] = await Promise.all([
    db
      .select({ id: hooks.id, scope: hooks.scope, key: hooks.key, projectId: hooks.projectId })
      .from(hooks)
      .where(and(inArray(hooks.key, keys), or(isNull(hooks.projectId), eq(hooks.projectId, params.projectId)))),
    lastErrorsOf(db, and(eq(hookInvocations.projectId, params.projectId), inArray(hookInvocations.hookKey, keys), gte(hookInvocations.createdAt, params.since))),
  ]);
  // The project's own hook wins over an instance-wide one of the same scope and key.
  const ids = new Map<string, string>();
  for (const h of found.sort((a, b) => (a.projectId === null ? 0 : 1) - (b.projectId === null ? 0 : 1))) ids.set(healthKey(h.scope, h.key), h.id);
  return rows.map((r) => ({
    hookId: ids.get(healthKey(r.scope, r.hookKey)) ?? null,
    scope: r.scope,
    hookKey: r.hookKey,
    failed: r.failed,
    lastError: errors.get(healthKey(r.scope, r.hookKey))?.error ?? null,
    lastErrorAt: new Date(r.lastErrorAt),
  }));
}
