/**
 * Runs driven by an outside runtime (a Claude Code session through the bridge, any runtime through
 * /api/v1/ingest/events): no worker executes them; their events arrive over HTTP, one request per
 * hook call, possibly several at once for one session.
 */
import { eq, getTableColumns, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { CHANNELS } from "@/db/notify-channels";
import { executeStatement, type Db } from "../client";
import { agents, runs } from "../schema";
import { UUID } from "./agents";
import { getRunByExternalSession, type RunActor, type RunRow } from "./runs";

/**
 * `select` items for some columns of a table, aliased `<prefix><column name>`, and how to read them
 * back into that part of its row. Only what a hook call uses: each column selected is decoded on
 * every call (the driver's and drizzle's mapping), and all of a run's and its agent's were a tenth
 * of the hook path's CPU.
 */
function tableColumns<T extends typeof agents | typeof runs, K extends keyof T["$inferSelect"] & string>(table: T, alias: string, prefix: string, keys: readonly K[]) {
  const all = getTableColumns(table) as unknown as Record<string, PgColumn>;
  const columns = keys.map((key) => [key, all[key]] as const);
  return {
    select: columns.map(([, c]) => `${alias}."${c.name}" as "${prefix}${c.name}"`).join(", "),
    /** The row as drizzle would map it (each column's own driver mapping), from the aliased fields. */
    read(raw: Record<string, unknown>): Pick<T["$inferSelect"], K> {
      const row: Record<string, unknown> = {};
      for (const [key, column] of columns) {
        const value = raw[`${prefix}${column.name}`];
        row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
      }
      return row as Pick<T["$inferSelect"], K>;
    },
  };
}

/** What a hook call reads of the session's agent. */
const AGENT_COLUMNS = tableColumns(agents, "a", "a_", ["id", "projectId", "name", "budgetUsd", "dailyBudgetPerPersonUsd", "failMode"]);
export type SessionAgentRow = ReturnType<typeof AGENT_COLUMNS.read>;

/** What a hook call reads of the session's run: who acts, its status and totals (its title for a trace); not its response or checkpoint. */
const RUN_COLUMNS = tableColumns(runs, "r", "r_", [
  "id",
  "projectId",
  "agentId",
  "scheduleId",
  "source",
  "externalSessionId",
  "prompt",
  "status",
  "outcome",
  "reason",
  "cancelRequested",
  "inputTokens",
  "outputTokens",
  "cachedTokens",
  "costUsd",
  "lastSeq",
  "toolsUsed",
  "blocked",
  "createdAt",
  "startedAt",
  "actorKey",
  "actorUserId",
  "actorLabel",
  "actorHost",
  "actorOsUser",
]);
export type SessionRunRow = ReturnType<typeof RUN_COLUMNS.read>;

/**
 * Where a turn starts or ends: the newest of them in a run says whether its last turn was
 * interrupted (a session that ends right after is cancelled: lib/features/bridge/session-ingest.ts).
 */
export const TURN_BOUNDARIES = ["user.prompt.submit", "turn.end", "turn.interrupted", "session.start", "session.resume"] as const;

/**
 * The session's agent, its newest run and the fingerprint of the hooks it obeys: every hook call of
 * a bridged session reads these, so they are one statement of fixed text, prepared once per
 * connection (executeStatement). The fingerprint is the hooks' generation (schema.ts
 * hookGeneration), which every change to any hook moves in the changing transaction (added,
 * removed, edited, enabled, moved, by the product or by hand), so a cached chain is never used
 * after a change (lib/features/runs/run-hooks.ts), and reading it costs the same however many
 * hooks there are. It was a hash over every hook in scope: 0.14 ms a call on the embedded
 * database with 3 hooks, 0.6–0.8 ms with 60.
 */
const AGENT_AND_RUN = `
  select ${AGENT_COLUMNS.select}, ${RUN_COLUMNS.select},
    (select g.n::text from hook_generation g where g.id = 1) as hooks_fingerprint,
    a.updated_at::text as agent_version,
    -- The person's spend today in this agent's sessions, read only where a per-person budget asks.
    case when a.daily_budget_per_person_usd is null then null else
      (select coalesce(sum(x.cost_usd), 0)::float8 from runs x
        where x.agent_id = a.id and x.actor_key = $5 and x.created_at >= date_trunc('day', now() at time zone 'UTC') at time zone 'UTC')
    end as person_spent_today,
    -- Where the run's last turn stands (its newest turn boundary), read only for a session's end.
    case when $6::boolean and r.id is not null then
      (select e.type from run_events e
        where e.run_id = r.id and e.type in (${TURN_BOUNDARIES.map((t) => `'${t}'`).join(", ")})
        order by e.seq desc limit 1)
    end as last_turn_boundary
  from agents a
  left join lateral (
    select * from runs where runs.agent_id = a.id and runs.external_session_id = $3 and runs.actor_key = $5 order by runs.created_at desc limit 1
  ) r on true
  where a.project_id = $1 and (a.name = $2 or (a.id::text = $2 and $4::boolean))
  order by (a.name = $2) desc
  limit 1`;

/** The newest run of an outside session of one actor (see getAgentAndExternalRun), read again when another call of the session started it first. */
const LATEST_EXTERNAL_RUN = `
  select ${RUN_COLUMNS.select} from runs r
  where r.agent_id = $1 and r.external_session_id = $2 and r.actor_key = $3
  order by r.created_at desc limit 1`;

/**
 * A session's new run, running from the start (no worker picks it up: its loop runs elsewhere),
 * with its notice, in one statement of fixed text. It takes its agent's project in the insert
 * itself, matched on both ids (as createRun): an agent of another project leaves it none and the
 * NOT NULL column refuses the row. No row when the session has an open run already
 * (runs_open_session_uq): two first events of one session, arriving at once on one web process or
 * two, start one run. A statement of its own, it rides in the group commit of the calls beside it;
 * it was a transaction of five round trips under an advisory lock, with a commit of its own, on
 * every session's start (issue 26).
 */
const START_EXTERNAL_RUN = `
  with created as (
    insert into runs (project_id, agent_id, source, external_session_id, status, started_at, prompt, created_by,
                      actor_key, actor_user_id, actor_label, actor_host, actor_os_user)
    values ((select a.project_id from agents a where a.id = $1::uuid and a.project_id = $2::uuid), $1::uuid, $3, $4, 'running', now(), $5, $6,
            $7, $8::uuid, $9, $10, $11)
    on conflict (agent_id, actor_key, external_session_id) where external_session_id is not null and status <> 'finished' do nothing
    returning *
  )
  select ${RUN_COLUMNS.select}, pg_notify('${CHANNELS.runs}', json_build_object('runId', r.id)::text) as notice
  from created r`;

/**
 * A session's start as START_EXTERNAL_RUN, with its agent named as a hook call names it (by name,
 * or by id, in the caller's project: AGENT_AND_RUN's match), so it needs nothing read first: sent
 * with that lookup, it rides in the same commit group, and a session's first call costs one round
 * trip fewer. No row when the project has no such agent or the session has an open run already.
 */
const START_EXTERNAL_RUN_BY_REF = `
  with agent as (
    select a.id, a.project_id from agents a
    where a.project_id = $1::uuid and (a.name = $2 or (a.id::text = $2 and $3::boolean))
    order by (a.name = $2) desc
    limit 1
  ), created as (
    insert into runs (project_id, agent_id, source, external_session_id, status, started_at, prompt, created_by,
                      actor_key, actor_user_id, actor_label, actor_host, actor_os_user)
    select agent.project_id, agent.id, $4, $5, 'running', now(), $6, $7, $8, $9::uuid, $10, $11, $12 from agent
    on conflict (agent_id, actor_key, external_session_id) where external_session_id is not null and status <> 'finished' do nothing
    returning *
  )
  select ${RUN_COLUMNS.select}, pg_notify('${CHANNELS.runs}', json_build_object('runId', r.id)::text) as notice
  from created r`;

/**
 * Starts a session's run on its agent's reference (START_EXTERNAL_RUN_BY_REF): the run, or
 * undefined when there is no such agent or the session has an open run (which getOrStartExternalRun
 * then finds). Call it in the same turn as getAgentAndExternalRun, for a session's start only.
 */
export async function startExternalRunByRef(
  db: Db,
  params: { projectId: string; agentRef: string; externalSessionId: string; source: string; prompt: string; createdBy: string; actor: RunActor },
): Promise<SessionRunRow | undefined> {
  const [created] = await executeStatement<Record<string, unknown>>(db, START_EXTERNAL_RUN_BY_REF, [
    params.projectId,
    params.agentRef,
    UUID.test(params.agentRef),
    ...newRunValues(params),
  ]);
  return created ? RUN_COLUMNS.read(created) : undefined;
}

/** The values both starts give a session's new run, in their statements' order (from the source on). */
function newRunValues(params: { source: string; externalSessionId: string; prompt: string; createdBy: string; actor: RunActor }): unknown[] {
  const { actor } = params;
  return [params.source, params.externalSessionId, params.prompt, params.createdBy, actor.key, actor.userId ?? null, actor.label, actor.host ?? null, actor.osUser ?? null];
}

/**
 * The project's agent a reference names (id or name) and its newest run for an outside session of
 * this actor, in one statement, with the fingerprint of the agent's hooks (above). Undefined when the project has
 * no such agent.
 */
export async function getAgentAndExternalRun(
  db: Db,
  params: {
    projectId: string;
    agentRef: string;
    externalSessionId: string;
    actorKey: string;
    /** Read the newest of the run's TURN_BOUNDARIES too (a session's end asks it). */
    turnBoundary?: boolean;
  },
): Promise<
  | {
      agent: SessionAgentRow;
      run: SessionRunRow | null;
      hooksFingerprint: string | undefined;
      /** The agent row's last change, exactly (text: no precision lost): what a later write can check it against. */
      agentVersion: string;
      personSpentToday: number | null;
      /** The type of the run's newest turn boundary, when asked for and there is one. */
      lastTurnBoundary: string | undefined;
    }
  | undefined
> {
  const [raw] = await executeStatement<Record<string, unknown>>(db, AGENT_AND_RUN, [
    params.projectId,
    params.agentRef,
    params.externalSessionId,
    UUID.test(params.agentRef),
    params.actorKey,
    params.turnBoundary === true,
  ]);
  if (!raw) return undefined;
  return {
    agent: AGENT_COLUMNS.read(raw),
    run: raw.r_id === null ? null : RUN_COLUMNS.read(raw),
    // No counter row (removed by hand): no fingerprint, so the chain is read afresh each call.
    hooksFingerprint: raw.hooks_fingerprint === null || raw.hooks_fingerprint === undefined ? undefined : String(raw.hooks_fingerprint),
    agentVersion: String(raw.agent_version),
    personSpentToday: raw.person_spent_today === null || raw.person_spent_today === undefined ? null : Number(raw.person_spent_today),
    lastTurnBoundary: typeof raw.last_turn_boundary === "string" ? raw.last_turn_boundary : undefined,
  };
}

/** Outcomes by which Hookplane itself stopped a session: it stays stopped until the session starts over. */
const STOPPED_BY_HOOKPLANE = new Set(["cancelled", "budget"]);

/** Tries at starting a session's run that may each find the open run it met finished meanwhile. */
const START_TRIES = 5;

/**
 * The session's current run, or a new running one. A finished run is reused when Hookplane stopped
 * it (cancelled from the dashboard, over budget) and `keepStopped` is set, so the session stays
 * stopped until it starts over; with `reopen` (a session resumed or compacted after its run ended)
 * a run that ended otherwise is running again. Two concurrent first events of one session share
 * one run: the unique index of open runs lets one INSERT through, and the other reads its run.
 */
export async function getOrStartExternalRun(
  db: Db,
  params: {
    /** The agent's project (the session's token's). */
    projectId: string;
    agentId: string;
    externalSessionId: string;
    source: string;
    prompt: string;
    createdBy: string;
    /** Who acts: the session is theirs alone (another actor's same session id is another run). */
    actor: RunActor;
    keepStopped: boolean;
    reopen?: boolean;
    /** The session's newest run as already read (getAgentAndExternalRun; null: none), so it is not read again. */
    current?: SessionRunRow | null;
  },
): Promise<{ run: SessionRunRow; created: boolean }> {
  const stopped = (run: SessionRunRow) => run.status === "finished" && STOPPED_BY_HOOKPLANE.has(run.outcome ?? "");
  const reusable = (run: SessionRunRow | undefined): boolean => Boolean(run && (run.status !== "finished" || (params.keepStopped && stopped(run))));
  // Every hook call of a session lands here: the common case (the run exists) is decided on what was read.
  const session = { agentId: params.agentId, externalSessionId: params.externalSessionId, actorKey: params.actor.key };
  const current = params.current === undefined ? await getRunByExternalSession(db, session) : (params.current ?? undefined);
  if (current && reusable(current)) return { run: current, created: false };
  if (params.reopen && current && !stopped(current)) {
    const reopened = await reopenExternalRun(db, current.id);
    if (reopened) return { run: reopened, created: false };
  }
  for (let attempt = 1; ; attempt++) {
    const [created] = await executeStatement<Record<string, unknown>>(db, START_EXTERNAL_RUN, [params.agentId, params.projectId, ...newRunValues(params)]);
    if (created) return { run: RUN_COLUMNS.read(created), created: true };
    // Another call of the session started (or reopened) its run first, and it is committed now
    // (ON CONFLICT waits for the transaction that holds the conflicting row): that run is this
    // call's too, unless it has finished since.
    const [raw] = await executeStatement<Record<string, unknown>>(db, LATEST_EXTERNAL_RUN, [params.agentId, params.externalSessionId, params.actor.key]);
    const open = raw ? RUN_COLUMNS.read(raw) : undefined;
    if (open && reusable(open)) return { run: open, created: false };
    if (attempt >= START_TRIES) throw new Error(`the run of session ${params.externalSessionId} kept finishing while it was started`);
  }
}

/**
 * A finished run of a session running again (a resume after it ended), with its notice: only
 * while the session has no other open run, which the unique index of open runs would refuse; no
 * row then, and the caller starts (joins) the session's open run instead.
 */
const REOPEN_EXTERNAL_RUN = `
  with reopened as (
    update runs set status = 'running', outcome = null, reason = null, finished_at = null
    where runs.id = $1::uuid and runs.status = 'finished'
      and not exists (
        select 1 from runs o
        where o.agent_id = runs.agent_id and o.actor_key = runs.actor_key and o.external_session_id = runs.external_session_id
          and o.status <> 'finished')
    returning *
  )
  select ${RUN_COLUMNS.select}, pg_notify('${CHANNELS.runs}', json_build_object('runId', r.id)::text) as notice
  from reopened r`;

async function reopenExternalRun(db: Db, runId: string): Promise<SessionRunRow | undefined> {
  try {
    const [raw] = await executeStatement<Record<string, unknown>>(db, REOPEN_EXTERNAL_RUN, [runId]);
    return raw ? RUN_COLUMNS.read(raw) : undefined;
  } catch (error) {
    // Another call of the session started its open run while this one reopened: it joins that one.
    if ((error as { code?: string }).code === "23505") return undefined;
    throw error;
  }
}

/** Records a tool the session used (and whether a hook denied one), for the run list's filters. */
export async function noteExternalToolUse(db: Db, params: { id: string; toolName: string; blocked?: boolean }) {
  const tool = JSON.stringify([params.toolName]);
  await db
    .update(runs)
    .set({
      toolsUsed: sql`case when ${runs.toolsUsed} @> ${tool}::jsonb then ${runs.toolsUsed} else ${runs.toolsUsed} || ${tool}::jsonb end`,
      ...(params.blocked ? { blocked: true } : {}),
    })
    .where(eq(runs.id, params.id));
  await db.execute(sql`select pg_notify(${CHANNELS.runs}, ${JSON.stringify({ runId: params.id })})`);
}

/** Outside sessions still open whose last event (or start) is older than `idleMs`, in every project. */
export async function listIdleExternalRuns(db: Db, params: { idleMs: number }): Promise<RunRow[]> {
  const rows = await db
    .select()
    .from(runs)
    .where(
      sql`${runs.externalSessionId} is not null and ${runs.status} <> 'finished'
        and coalesce((select max(e.ts) from run_events e where e.run_id = "runs"."id"), "runs"."created_at")
          < now() - ${`${params.idleMs} milliseconds`}::interval`,
    )
    .limit(100);
  return rows;
}
