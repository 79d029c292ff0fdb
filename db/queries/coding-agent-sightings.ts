/**
 * Coding agents' sessions as their own telemetry reports them (schema: codingAgentSightings), and
 * which of them ran without Hookplane's guards. Each batch adds to its session's row in one
 * statement, so two batches at once (two exporters, two web processes) both count.
 */
import { and, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { codingAgentSightings, type RegisteredHook } from "../schema";

export type SightingRow = typeof codingAgentSightings.$inferSelect;

export interface SightingBatch {
  projectId: string;
  agentId: string;
  actorKey: string;
  actorLabel: string;
  codingAgent: string;
  externalSessionId: string;
  cliVersion: string;
  /** Undefined: this batch does not say which hooks the session has. */
  hookInventory?: RegisteredHook[];
  safeMode: boolean;
  toolCalls: number;
  hookRuns: number;
}

export async function recordSighting(db: Db, batch: SightingBatch): Promise<void> {
  const t = codingAgentSightings;
  await db
    .insert(t)
    .values({ ...batch, hookInventory: batch.hookInventory ?? null })
    .onConflictDoUpdate({
      target: [t.agentId, t.actorKey, t.codingAgent, t.externalSessionId],
      set: {
        lastSeenAt: sql`now()`,
        actorLabel: sql`excluded.actor_label`,
        cliVersion: sql`case when excluded.cli_version = '' then ${t.cliVersion} else excluded.cli_version end`,
        // The union of what every batch listed (hook_registered may span two batches).
        hookInventory: sql`case when excluded.hook_inventory is null then ${t.hookInventory} else (
          select coalesce(jsonb_agg(distinct e), '[]'::jsonb) from jsonb_array_elements(coalesce(${t.hookInventory}, '[]'::jsonb) || excluded.hook_inventory) e) end`,
        safeMode: sql`${t.safeMode} or excluded.safe_mode`,
        toolCalls: sql`${t.toolCalls} + excluded.tool_calls`,
        hookRuns: sql`${t.hookRuns} + excluded.hook_runs`,
      },
    });
}

/** Why a session ran without Hookplane's guards; see the docs (docs/coding-agents.md). */
export type UnguardedReason = "safe_mode" | "no_gating_hook" | "calls_unseen";

/**
 * The reason, or null for a guarded session: Claude Code's safe mode (no hooks run), a hook list
 * with no PreToolUse hook (no tool call is checked), or tool calls while no hook event of the
 * session reached Hookplane as that person (the bridge missing, replaced or failing open).
 */
// Written with the table's name: in a select list Drizzle leaves columns unqualified, and inside
// the subquery an unqualified actor_key would be the run's own.
const unguardedReason = sql<UnguardedReason | null>`case
  when coding_agent_sightings.safe_mode then 'safe_mode'
  when coding_agent_sightings.hook_inventory is not null and not (coding_agent_sightings.hook_inventory @> '[{"event":"PreToolUse"}]'::jsonb) then 'no_gating_hook'
  when coding_agent_sightings.tool_calls > 0 and not exists (
    select 1 from runs r where r.project_id = coding_agent_sightings.project_id
      and r.external_session_id = coding_agent_sightings.external_session_id and r.actor_key = coding_agent_sightings.actor_key
  ) then 'calls_unseen'
end`;

export interface SightingWindow {
  projectId: string;
  agentId?: string | null;
  from: Date;
  to: Date;
}

const inWindow = (w: SightingWindow): SQL =>
  and(
    eq(codingAgentSightings.projectId, w.projectId),
    w.agentId ? eq(codingAgentSightings.agentId, w.agentId) : undefined,
    gte(codingAgentSightings.lastSeenAt, w.from),
    lt(codingAgentSightings.lastSeenAt, w.to),
  )!;

/** Sessions seen in the window that ran unguarded, newest first. */
export async function listUnguardedSessions(db: Db, w: SightingWindow & { limit?: number }): Promise<(SightingRow & { reason: UnguardedReason })[]> {
  const rows = await db
    .select({ sighting: codingAgentSightings, reason: unguardedReason })
    .from(codingAgentSightings)
    .where(and(inWindow(w), sql`${unguardedReason} is not null`))
    .orderBy(desc(codingAgentSightings.lastSeenAt))
    .limit(w.limit ?? 50);
  return rows.map((r) => ({ ...r.sighting, reason: r.reason! }));
}

export async function countUnguardedSessions(db: Db, w: SightingWindow): Promise<number> {
  const [row] = await db
    .select({ value: sql<number>`count(*)::int` })
    .from(codingAgentSightings)
    .where(and(inWindow(w), sql`${unguardedReason} is not null`));
  return Number(row?.value ?? 0);
}
