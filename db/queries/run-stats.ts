/**
 * A project's (or one agent's) runs over a window at a glance: how many, how they ended, how many a
 * hook blocked, what they cost and how long they took. One aggregate over `runs_project_created_idx`
 * or `runs_agent_created_idx`.
 */
import { and, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../client";
import { runs } from "../schema";

export interface RunStats {
  runs: number;
  /** Not finished yet: queued, running or waiting for a person. */
  active: number;
  completed: number;
  /** Failed or timed out. */
  failed: number;
  blocked: number;
  costUsd: number;
  /** Of the finished runs that started; null when there is none. */
  medianDurationMs: number | null;
  p95DurationMs: number | null;
}

export async function getRunStats(db: Db, params: { projectId: string; agentId?: string; since: Date }): Promise<RunStats> {
  const duration = sql`extract(epoch from (${runs.finishedAt} - ${runs.startedAt})) * 1000`;
  const timed = sql`${runs.finishedAt} is not null and ${runs.startedAt} is not null`;
  const [row] = await db
    .select({
      runs: sql<number>`count(*)::int`,
      active: sql<number>`(count(*) filter (where ${runs.status} <> 'finished'))::int`,
      completed: sql<number>`(count(*) filter (where ${runs.outcome} = 'completed'))::int`,
      failed: sql<number>`(count(*) filter (where ${runs.outcome} in ('failed', 'timeout')))::int`,
      blocked: sql<number>`(count(*) filter (where ${runs.blocked}))::int`,
      costUsd: sql<number>`coalesce(sum(${runs.costUsd}), 0)::float8`,
      medianDurationMs: sql<number | null>`(percentile_cont(0.5) within group (order by ${duration}) filter (where ${timed}))::float8`,
      p95DurationMs: sql<number | null>`(percentile_cont(0.95) within group (order by ${duration}) filter (where ${timed}))::float8`,
    })
    .from(runs)
    .where(and(eq(runs.projectId, params.projectId), params.agentId ? eq(runs.agentId, params.agentId) : undefined, gte(runs.createdAt, params.since)));
  return {
    runs: row.runs,
    active: row.active,
    completed: row.completed,
    failed: row.failed,
    blocked: row.blocked,
    costUsd: Number(row.costUsd),
    medianDurationMs: row.medianDurationMs === null ? null : Number(row.medianDurationMs),
    p95DurationMs: row.p95DurationMs === null ? null : Number(row.p95DurationMs),
  };
}
