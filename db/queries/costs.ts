import { and, desc, eq, gte, isNotNull, lt, sql } from "drizzle-orm";
import type { Db } from "../client";
import { agents, runEvents, runs } from "../schema";

/** A project's window: every figure counts that project's runs only. */
export interface CostWindow {
  projectId: string;
  from: Date;
  to: Date;
  /** One person's runs (their bridged sessions) only. */
  actorUserId?: string;
}

const inWindow = (w: CostWindow) =>
  and(eq(runs.projectId, w.projectId), gte(runs.createdAt, w.from), lt(runs.createdAt, w.to), w.actorUserId ? eq(runs.actorUserId, w.actorUserId) : undefined);

/** Per person whose coding agents ran (bridged sessions); the project's own agents' runs name no one. */
export async function costByPerson(db: Db, w: CostWindow) {
  return db
    .select({
      actorKey: runs.actorKey,
      actorUserId: sql<string | null>`min(${runs.actorUserId}::text)`,
      // The label of their newest run: a person's email may have changed since the oldest.
      label: sql<string>`(array_agg(${runs.actorLabel} order by ${runs.createdAt} desc))[1]`,
      costUsd: sql<number>`coalesce(sum(${runs.costUsd}), 0)::float8`,
      runs: sql<number>`count(*)::int`,
      inputTokens: sql<number>`coalesce(sum(${runs.inputTokens}), 0)::int`,
      outputTokens: sql<number>`coalesce(sum(${runs.outputTokens}), 0)::int`,
    })
    .from(runs)
    .where(and(inWindow(w), isNotNull(runs.actorKey)))
    .groupBy(runs.actorKey)
    .orderBy(desc(sql`4`));
}

export async function costByAgent(db: Db, w: CostWindow) {
  return db
    .select({
      agentId: agents.id,
      agentName: agents.name,
      costUsd: sql<number>`coalesce(sum(${runs.costUsd}), 0)::float8`,
      runs: sql<number>`count(*)::int`,
      inputTokens: sql<number>`coalesce(sum(${runs.inputTokens}), 0)::int`,
      outputTokens: sql<number>`coalesce(sum(${runs.outputTokens}), 0)::int`,
    })
    .from(runs)
    .innerJoin(agents, eq(agents.id, runs.agentId))
    .where(inWindow(w))
    .groupBy(agents.id, agents.name)
    .orderBy(desc(sql`3`));
}

/** Per model, from the model.post events (one per provider call, each priced when it happened). */
export async function costByModel(db: Db, w: CostWindow) {
  return db
    .select({
      model: sql<string>`${runEvents.data}->>'model'`,
      costUsd: sql<number>`coalesce(sum((${runEvents.data}->>'costUsd')::float8), 0)`,
      calls: sql<number>`count(*)::int`,
      inputTokens: sql<number>`coalesce(sum((${runEvents.data}->>'inputTokens')::int), 0)::int`,
      outputTokens: sql<number>`coalesce(sum((${runEvents.data}->>'outputTokens')::int), 0)::int`,
      /** Calls with tokens that cost nothing: recorded with no price (or a price of zero). */
      zeroCostCalls: sql<number>`(count(*) filter (where coalesce((${runEvents.data}->>'costUsd')::float8, 0) = 0
        and coalesce((${runEvents.data}->>'inputTokens')::int, 0) + coalesce((${runEvents.data}->>'outputTokens')::int, 0) > 0))::int`,
    })
    .from(runEvents)
    .innerJoin(runs, eq(runs.id, runEvents.runId))
    .where(
      and(
        eq(runs.projectId, w.projectId),
        eq(runEvents.type, "model.post"),
        gte(runEvents.ts, w.from),
        lt(runEvents.ts, w.to),
        w.actorUserId ? eq(runs.actorUserId, w.actorUserId) : undefined,
      ),
    )
    .groupBy(sql`1`)
    .orderBy(desc(sql`2`));
}

export async function costByDay(db: Db, w: CostWindow) {
  return db
    .select({
      day: sql<string>`to_char(date_trunc('day', ${runs.createdAt} at time zone 'UTC'), 'YYYY-MM-DD')`,
      costUsd: sql<number>`coalesce(sum(${runs.costUsd}), 0)::float8`,
      runs: sql<number>`count(*)::int`,
    })
    .from(runs)
    .where(inWindow(w))
    .groupBy(sql`1`)
    .orderBy(sql`1`);
}

export async function topRunsByCost(db: Db, w: CostWindow & { limit: number }) {
  return db
    .select({ id: runs.id, agentName: agents.name, prompt: runs.prompt, costUsd: runs.costUsd, createdAt: runs.createdAt, outcome: runs.outcome })
    .from(runs)
    .innerJoin(agents, eq(agents.id, runs.agentId))
    .where(inWindow(w))
    .orderBy(desc(runs.costUsd))
    .limit(w.limit);
}

/** Each agent of the project with its budgets, and what it has spent since midnight UTC. */
export async function dailyBudgets(db: Db, params: { projectId: string; since: Date }) {
  return db
    .select({
      agentId: agents.id,
      agentName: agents.name,
      dailyBudgetUsd: agents.dailyBudgetUsd,
      budgetUsd: agents.budgetUsd,
      dailyBudgetPerPersonUsd: agents.dailyBudgetPerPersonUsd,
      // Who of the people behind its bridged sessions spent most today, and how much.
      topPerson: sql<{ label: string; spentTodayUsd: number } | null>`(select json_build_object('label', max(r.actor_label), 'spentTodayUsd', sum(r.cost_usd)::float8) from runs r
        where r.agent_id = "agents"."id" and r.actor_key is not null and r.created_at >= ${params.since.toISOString()}::timestamptz
        group by r.actor_key order by sum(r.cost_usd) desc limit 1)`,
      // Written out with aliases: drizzle leaves columns unqualified in a one-table select.
      spentTodayUsd: sql<number>`coalesce((select sum(r.cost_usd) from runs r where r.agent_id = "agents"."id" and r.created_at >= ${params.since.toISOString()}::timestamptz), 0)::float8`,
    })
    .from(agents)
    .where(eq(agents.projectId, params.projectId))
    .orderBy(agents.name);
}
