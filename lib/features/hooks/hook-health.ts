/**
 * The health of the hooks a page lists, keyed by their row id: one ledger query for all of them
 * (db/queries/hook-health.ts) over the last HEALTH_WINDOW_DAYS.
 */
import "server-only";
import type { Db } from "@/db/client";
import { getHookHealth, healthKey } from "@/db/queries/hook-health";
import { healthView, healthWindowStart, type HookHealthView } from "./hook-health-view";

export async function loadHookHealth(
  db: Db,
  params: { projectId: string; hooks: { id: string; scope: string; key: string; spec?: Record<string, unknown> }[] },
): Promise<Record<string, HookHealthView>> {
  const health = await getHookHealth(db, { projectId: params.projectId, hooks: params.hooks, since: healthWindowStart() });
  const views: Record<string, HookHealthView> = {};
  for (const hook of params.hooks) {
    const counts = health.get(healthKey(hook.scope, hook.key));
    // A hook that runs on the developer's machine leaves no ledger row here: "not fired" would not be so.
    if (!counts && hook.spec?.runsOn === "agent") continue;
    views[hook.id] = healthView(counts);
  }
  return views;
}
