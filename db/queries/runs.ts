import { and, desc, eq, gte, ilike, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { CHANNELS } from "@/db/notify-channels";
import { fieldsOf } from "@/lib/core/null-fields";
import { executeStatement, type Db } from "../client";
import { agents, runs, type RunStatus } from "../schema";
import { containing } from "./like-pattern";

export type RunRow = typeof runs.$inferSelect;

export function runToApi(row: RunRow & { agentName?: string | null }) {
  return {
    ...fieldsOf(row, ["id", "agentId", "agentName", "scheduleId", "source"]),
    // A coding agent's session bridged in: its input lives in that CLI, so it cannot be re-run here.
    bridged: row.externalSessionId !== null,
    // parentRunId: the run this one re-ran.
    ...fieldsOf(row, [
      "parentRunId", "status", "outcome", "reason", "prompt", "codeHooks", "response",
      "inputTokens", "outputTokens", "cachedTokens", "costUsd", "lastSeq", "toolsUsed", "blocked", "createdAt", "startedAt", "finishedAt",
    ]),
    // Who acted in an outside session; the machine is as its CLI reported it.
    actor: row.actorLabel
      ? {
          ...(row.actorUserId && { userId: row.actorUserId }),
          label: row.actorLabel,
          ...((row.actorHost || row.actorOsUser) && { machine: { host: row.actorHost ?? undefined, osUser: row.actorOsUser ?? undefined, reported: true as const } }),
        }
      : undefined,
  };
}
export type RunApi = ReturnType<typeof runToApi>;

async function announce(db: Db, runId: string) {
  await db.execute(sql`select pg_notify(${CHANNELS.runs}, ${JSON.stringify({ runId })})`);
}

/**
 * A new queued run of an agent of `projectId`. The run takes its agent's project in the insert
 * itself (read from the agent row, matched on both): an agent of another project leaves it none,
 * and the NOT NULL column refuses the row.
 */
/** Who acted in an outside session (runs.actor_*: db/schema.ts). */
export interface RunActor {
  /** `user:<id>` or `token:<id>`: a session is one run per actor. */
  key: string;
  userId?: string;
  /** The person's email, or the token's label. */
  label: string;
  /** Reported by the machine's CLI: untrusted. */
  host?: string;
  osUser?: string;
}

function actorColumns(actor: RunActor | undefined) {
  if (!actor) return {};
  return { actorKey: actor.key, actorUserId: actor.userId ?? null, actorLabel: actor.label, actorHost: actor.host ?? null, actorOsUser: actor.osUser ?? null };
}

export async function createRun(
  db: Db,
  params: {
    projectId: string;
    agentId: string;
    prompt: string;
    source: string;
    createdBy?: string;
    scheduleId?: string;
    parentRunId?: string;
    externalSessionId?: string;
    vars?: Record<string, string>;
    /** The run's own code hook ids (prompt-level override); undefined defers to the agent's. */
    codeHooks?: string[];
    actor?: RunActor;
  },
) {
  const { projectId, actor, ...rest } = params;
  const values = { ...rest, ...actorColumns(actor) };
  const agentProject = sql<string>`(select ${agents.projectId} from ${agents} where ${agents.id} = ${params.agentId} and ${agents.projectId} = ${projectId})`;
  const [row] = await db
    .insert(runs)
    .values({ ...values, projectId: agentProject })
    .returning();
  await announce(db, row.id);
  return row;
}

/** The project's run; undefined for another project's (the caller answers 404). */
export async function getRun(db: Db, params: { projectId: string; id: string }) {
  const [row] = await db
    .select({ run: runs, agentName: agents.name })
    .from(runs)
    .innerJoin(agents, eq(agents.id, runs.agentId))
    .where(and(eq(runs.id, params.id), eq(runs.projectId, params.projectId)));
  return row ? { ...row.run, agentName: row.agentName } : undefined;
}

/**
 * A run of any project, for the code that executes runs across projects (queue workers, the
 * stream): what it then does takes the project from the row.
 */
export async function getRunInAnyProject(db: Db, params: { id: string }) {
  const [row] = await db
    .select({ run: runs, agentName: agents.name })
    .from(runs)
    .innerJoin(agents, eq(agents.id, runs.agentId))
    .where(eq(runs.id, params.id));
  return row ? { ...row.run, agentName: row.agentName } : undefined;
}

/**
 * The newest run of an outside session: of this actor's (another actor's same session id is not
 * theirs), or with no `actorKey` of anyone's (a test, a tool that reads what a session left).
 */
export async function getRunByExternalSession(db: Db, params: { agentId: string; externalSessionId: string; actorKey?: string }) {
  const [row] = await db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.agentId, params.agentId),
        eq(runs.externalSessionId, params.externalSessionId),
        params.actorKey === undefined ? undefined : eq(runs.actorKey, params.actorKey),
      ),
    )
    .orderBy(desc(runs.createdAt))
    .limit(1);
  return row;
}

/** The update and its notice in one statement (a data-modifying CTE runs whether or not it is read). */
const SET_RUN_STATUS = `
  with moved as (
    update runs set status = $2, started_at = coalesce(runs.started_at, now())
    where runs.id = $1::uuid and runs.status <> 'finished'
  )
  select pg_notify('${CHANNELS.runs}', json_build_object('runId', $1::uuid)::text)`;

/** Moves a run between its live states; a finished run stays finished whoever comes late. */
export async function setRunStatus(db: Db, params: { id: string; status: Exclude<RunStatus, "finished"> }) {
  await executeStatement(db, SET_RUN_STATUS, [params.id, params.status]);
}

export interface RunTotals {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
}

/** Running totals after each model call, so the dashboard shows the cost so far. */
export async function setRunTotals(db: Db, params: { id: string; totals: RunTotals; toolsUsed?: string[]; blocked?: boolean }) {
  await db
    .update(runs)
    .set({
      ...params.totals,
      ...(params.toolsUsed ? { toolsUsed: params.toolsUsed } : {}),
      ...(params.blocked !== undefined ? { blocked: params.blocked } : {}),
    })
    .where(eq(runs.id, params.id));
  await announce(db, params.id);
}

/**
 * Ends a run. In the same statement (so atomically) every approval still pending for it is
 * abandoned (nobody will act on its answer any more, so it can no longer be decided), and the
 * working transcript the checkpoint needed is dropped. Returns the approvals it abandoned.
 */
/** finishRun's statement: totals left null keep the run's own. */
const FINISH_RUN = `
  with finished as (
    update runs set status = 'finished', outcome = $2, reason = $3, response = $4, finished_at = $5::timestamptz,
      checkpoint = null,
      input_tokens = coalesce($6::integer, runs.input_tokens),
      output_tokens = coalesce($7::integer, runs.output_tokens),
      cached_tokens = coalesce($8::integer, runs.cached_tokens),
      cost_usd = coalesce($9::double precision, runs.cost_usd)
    where runs.id = $1::uuid
  ),
  abandoned as (
    update approvals set status = 'abandoned', decided_via = 'abandoned', decided_at = $5::timestamptz, reason = $10
    where approvals.run_id = $1::uuid and approvals.status = 'pending'
    returning approvals.id
  ),
  dropped as (
    delete from run_messages where run_messages.run_id = $1::uuid
  )
  select pg_notify('${CHANNELS.runs}', json_build_object('runId', $1::uuid)::text) as notice,
         coalesce((select json_agg(n.id) from (
           select a.id, pg_notify('${CHANNELS.approvals}', json_build_object('approvalId', a.id)::text) from abandoned a
         ) n), '[]'::json) as abandoned`;

export async function finishRun(
  db: Db,
  params: { id: string; outcome: string; reason?: string; response?: string; totals?: RunTotals },
): Promise<{ abandoned: string[] }> {
  const totals = params.totals;
  const [row] = await executeStatement<{ abandoned: string[] | string }>(db, FINISH_RUN, [
    params.id,
    params.outcome,
    params.reason ?? null,
    params.response ?? null,
    new Date().toISOString(),
    totals?.inputTokens ?? null,
    totals?.outputTokens ?? null,
    totals?.cachedTokens ?? null,
    totals?.costUsd ?? null,
    `the run ended (${params.outcome}) before anyone decided`,
  ]);
  const abandoned = row?.abandoned ?? [];
  return { abandoned: typeof abandoned === "string" ? (JSON.parse(abandoned) as string[]) : abandoned };
}

export async function saveRunCheckpoint(db: Db, params: { id: string; checkpoint: unknown }) {
  await db.update(runs).set({ checkpoint: params.checkpoint }).where(eq(runs.id, params.id));
}

export interface RunFilters {
  agentId?: string;
  status?: string;
  outcome?: string;
  tool?: string;
  blocked?: boolean;
  q?: string;
  from?: Date;
  to?: Date;
  minCostUsd?: number;
  /** A person's runs: their user id. */
  actorUserId?: string;
}

function filterConditions(f: RunFilters): SQL[] {
  const where: SQL[] = [];
  if (f.agentId) where.push(eq(runs.agentId, f.agentId));
  if (f.status) where.push(eq(runs.status, f.status as RunStatus));
  if (f.outcome) where.push(eq(runs.outcome, f.outcome));
  if (f.tool) where.push(sql`${runs.toolsUsed} @> ${JSON.stringify([f.tool])}::jsonb`);
  if (f.blocked !== undefined) where.push(eq(runs.blocked, f.blocked));
  if (f.from) where.push(gte(runs.createdAt, f.from));
  if (f.to) where.push(lte(runs.createdAt, f.to));
  if (f.minCostUsd !== undefined) where.push(gte(runs.costUsd, f.minCostUsd));
  if (f.actorUserId) where.push(eq(runs.actorUserId, f.actorUserId));
  if (f.q) {
    const text = containing(f.q);
    where.push(or(ilike(runs.prompt, text), ilike(runs.response, text), sql`exists (select 1 from run_events e where e.run_id = "runs"."id" and e.data::text ilike ${text})`)!);
  }
  return where;
}

/** Newest first; the cursor is the last row's (createdAt, id). */
export async function listRuns(db: Db, params: RunFilters & { projectId: string; limit: number; before?: { createdAt: string; id: string } }) {
  const where = [eq(runs.projectId, params.projectId), ...filterConditions(params)];
  if (params.before) {
    const at = new Date(params.before.createdAt);
    where.push(or(lt(runs.createdAt, at), and(eq(runs.createdAt, at), lt(runs.id, params.before.id)))!);
  }
  const rows = await db
    .select({ run: runs, agentName: agents.name })
    .from(runs)
    .innerJoin(agents, eq(agents.id, runs.agentId))
    .where(and(...where))
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(params.limit);
  return rows.map((r) => ({ ...r.run, agentName: r.agentName }));
}

export async function agentSpendSince(db: Db, params: { agentId: string; since: Date }): Promise<number> {
  const [row] = await db
    .select({ total: sql<number>`coalesce(sum(${runs.costUsd}), 0)` })
    .from(runs)
    .where(and(eq(runs.agentId, params.agentId), gte(runs.createdAt, params.since)));
  return Number(row.total);
}
