/**
 * The hooks a run obeys, in execution order: the instance-wide ones, then its project's global,
 * the agent's, its schedule's (Tailored AI appends job hooks after profile hooks). A stored spec that no longer validates is
 * left out and logged, never crashing the run.
 */
import type { Db } from "@/db/client";
import { listHooksForScopes } from "@/db/queries/hooks";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import type { RuntimeHook } from "@/lib/core/hooks/runtime-types";
import { logger } from "@/lib/platform/logger";

/**
 * In a flow's stage, the stage agent's own hooks come after the flow's (`stageAgentId`): global,
 * the flow agent's, the stage agent's, the schedule's.
 */
export function scopesForRun(params: { agentId: string; stageAgentId?: string; scheduleId?: string | null }): string[] {
  return [
    "global",
    `agent:${params.agentId}`,
    ...(params.stageAgentId && params.stageAgentId !== params.agentId ? [`agent:${params.stageAgentId}`] : []),
    ...(params.scheduleId ? [`schedule:${params.scheduleId}`] : []),
  ];
}

export async function loadRunHooks(
  db: Db,
  params: { projectId: string; agentId: string; stageAgentId?: string; scheduleId?: string | null },
): Promise<RuntimeHook[]> {
  const rows = await listHooksForScopes(db, { projectId: params.projectId, scopes: scopesForRun(params) });
  const hooks: RuntimeHook[] = [];
  for (const row of rows) {
    const parsed = hookSpecSchema.safeParse(row.spec);
    if (!parsed.success) {
      logger.warn({ hook: row.key, scope: row.scope, issues: parsed.error.issues }, "stored hook no longer validates; skipped");
      continue;
    }
    hooks.push({ ...parsed.data, enabled: row.enabled && parsed.data.enabled, version: row.version });
  }
  return hooks;
}

/**
 * The chains read for bridged sessions, per database and (project, agent), with the fingerprint
 * they were read at. On globalThis: Next's bundled routes and server.ts share one cache.
 */
const CHAINS_KEY = Symbol.for("hookplane.agentHookChains");
const MAX_CHAINS = 2_000;
type Chain = { fingerprint: string; hooks: Promise<RuntimeHook[]> };
const chains = ((globalThis as typeof globalThis & { [CHAINS_KEY]?: WeakMap<Db, Map<string, Chain>> })[CHAINS_KEY] ??= new WeakMap());

/**
 * An agent's chain (instance-wide and the project's `global` hooks, the agent's own), read again
 * only when `fingerprint` (computed by the same statement that read the session's run:
 * db/queries/external-runs.ts) differs from the one it was read at: every hook call of a bridged
 * session needs it, and parsing every stored spec on each call cost more than the dispatch. Never
 * stale: a changed hook changes the fingerprint the next call reads.
 */
export function loadAgentHooks(db: Db, params: { projectId: string; agentId: string; fingerprint: string }): Promise<RuntimeHook[]> {
  let byAgent = chains.get(db);
  if (!byAgent) chains.set(db, (byAgent = new Map()));
  const key = `${params.projectId}:${params.agentId}`;
  const cached = byAgent.get(key);
  if (cached && cached.fingerprint === params.fingerprint) return cached.hooks;
  const hooks = loadRunHooks(db, { projectId: params.projectId, agentId: params.agentId });
  const entry = { fingerprint: params.fingerprint, hooks };
  byAgent.delete(key);
  if (byAgent.size >= MAX_CHAINS) byAgent.delete(byAgent.keys().next().value!);
  byAgent.set(key, entry);
  hooks.catch(() => {
    if (byAgent.get(key) === entry) byAgent.delete(key);
  });
  return hooks;
}
