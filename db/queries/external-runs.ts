/**
 * Runs driven by an outside runtime (a Claude Code session through the bridge, any runtime through
 * /api/v1/ingest/events): no worker executes them; their events arrive over HTTP, one request per
 * hook call, possibly several at once for one session.
 */
import { eq, getTableColumns, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { CHANNELS } from "@/db/notify-channels";
import { executeStatement, isEmbedded, type Db } from "../client";
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
const AGENT_COLUMNS = tableColumns(agents, "a", "a_", ["id", "projectId", "name", "budgetUsd", "dailyBudgetPerPersonUsd"]);
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
    end as person_spent_today
  from agents a
  left join lateral (
    select * from runs where runs.agent_id = a.id and runs.external_session_id = $3 and runs.actor_key = $5 order by runs.created_at desc limit 1
  ) r on true
  where a.project_id = $1 and (a.name = $2 or (a.id::text = $2 and $4::boolean))
  order by (a.name = $2) desc
  limit 1`;

/** The newest run of an outside session of one actor (see getAgentAndExternalRun), read again under the session's lock. */
const LATEST_EXTERNAL_RUN = `
  select ${RUN_COLUMNS.select} from runs r
  where r.agent_id = $1 and r.external_session_id = $2 and r.actor_key = $3
  order by r.created_at desc limit 1`;

/**
 * A session's new run, running from the start (no worker picks it up: its loop runs elsewhere),
 * with its notice, in one statement of fixed text. It takes its agent's project in the insert
 * itself, matched on both ids (as createRun): an agent of another project leaves it none and the
 * NOT NULL column refuses the row. A session start was four statements built by drizzle, some
 * three times the CPU of a tool call; 200 sessions opening at once queued behind them (issue 26).
 */
const START_EXTERNAL_RUN = `
  with created as (
    insert into runs (project_id, agent_id, source, external_session_id, status, started_at, prompt, created_by,
                      actor_key, actor_user_id, actor_label, actor_host, actor_os_user)
    values ((select a.project_id from agents a where a.id = $1::uuid and a.project_id = $2::uuid), $1::uuid, $3, $4, 'running', now(), $5, $6,
            $7, $8::uuid, $9, $10, $11)
    returning *
  )
  select ${RUN_COLUMNS.select}, pg_notify('${CHANNELS.runs}', json_build_object('runId', r.id)::text) as notice
  from created r`;

/**
 * The project's agent a reference names (id or name) and its newest run for an outside session of
 * this actor, in one statement, with the fingerprint of the agent's hooks (above). Undefined when the project has
 * no such agent.
 */
export async function getAgentAndExternalRun(
  db: Db,
  params: { projectId: string; agentRef: string; externalSessionId: string; actorKey: string },
): Promise<
  | {
      agent: SessionAgentRow;
      run: SessionRunRow | null;
      hooksFingerprint: string | undefined;
      /** The agent row's last change, exactly (text: no precision lost): what a later write can check it against. */
      agentVersion: string;
      personSpentToday: number | null;
    }
  | undefined
> {
  const [raw] = await executeStatement<Record<string, unknown>>(db, AGENT_AND_RUN, [
    params.projectId,
    params.agentRef,
    params.externalSessionId,
    UUID.test(params.agentRef),
    params.actorKey,
  ]);
  if (!raw) return undefined;
  return {
    agent: AGENT_COLUMNS.read(raw),
    run: raw.r_id === null ? null : RUN_COLUMNS.read(raw),
    // No counter row (removed by hand): no fingerprint, so the chain is read afresh each call.
    hooksFingerprint: raw.hooks_fingerprint === null || raw.hooks_fingerprint === undefined ? undefined : String(raw.hooks_fingerprint),
    agentVersion: String(raw.agent_version),
    personSpentToday: raw.person_spent_today === null || raw.person_spent_today === undefined ? null : Number(raw.person_spent_today),
  };
}

/** Outcomes by which Hookplane itself stopped a session: it stays stopped until the session starts over. */
const STOPPED_BY_HOOKPLANE = new Set(["cancelled", "budget"]);

/**
 * The session's current run, or a new running one. A finished run is reused when Hookplane stopped
 * it (cancelled from the dashboard, over budget) and `keepStopped` is set, so the session stays
 * stopped until it starts over; with `reopen` (a session resumed or compacted after its run ended)
 * a run that ended otherwise is running again. A transaction-scoped advisory lock on (agent,
 * session) makes two concurrent first events of one session share one run instead of creating two.
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
  // Every hook call of a session lands here: the common case (the run exists) needs no lock.
  const session = { agentId: params.agentId, externalSessionId: params.externalSessionId, actorKey: params.actor.key };
  const current = params.current === undefined ? await getRunByExternalSession(db, session) : (params.current ?? undefined);
  if (current && reusable(current)) return { run: current, created: false };
  // Two first events of one session must not make two runs: they queue on the session's lock.
  const key = `external-run:${params.agentId}:${params.actor.key}:${params.externalSessionId}`;
  const start = async (q: Db): Promise<{ run: SessionRunRow; created: boolean }> => {
    const [raw] = await executeStatement<Record<string, unknown>>(q, LATEST_EXTERNAL_RUN, [params.agentId, params.externalSessionId, params.actor.key]);
    const latest = raw ? RUN_COLUMNS.read(raw) : undefined;
    if (latest && reusable(latest)) return { run: latest, created: false };
    if (latest && params.reopen && !stopped(latest)) {
      const [reopened] = await q
        .update(runs)
        .set({ status: "running", outcome: null, reason: null, finishedAt: null })
        .where(eq(runs.id, latest.id))
        .returning();
      await q.execute(sql`select pg_notify(${CHANNELS.runs}, ${JSON.stringify({ runId: latest.id })})`);
      return { run: reopened, created: false };
    }
    const actor = params.actor;
    const [created] = await executeStatement<Record<string, unknown>>(q, START_EXTERNAL_RUN, [
      params.agentId,
      params.projectId,
      params.source,
      params.externalSessionId,
      params.prompt,
      params.createdBy,
      actor.key,
      actor.userId ?? null,
      actor.label,
      actor.host ?? null,
      actor.osUser ?? null,
    ]);
    return { run: RUN_COLUMNS.read(created), created: true };
  };
  // The embedded database: its one process holds the lock, and the statements stay prepared
  // (a PGlite transaction would send them through drizzle, parsed and planned each time).
  if (isEmbedded(db)) return underProcessLock(key, () => start(db));
  // PostgreSQL: a transaction-scoped advisory lock, held by whichever web process takes it first.
  return db.transaction(async (tx) => {
    await executeStatement(tx, "select pg_advisory_xact_lock(hashtextextended($1, 0))", [key]);
    return start(tx);
  });
}

/**
 * Work queued on a key within this process, one at a time (the embedded database's session lock).
 * On globalThis: Next's bundled route handlers carry their own copy of this module but share the
 * one database, so they must share the locks too.
 */
const LOCKS_KEY = Symbol.for("hookplane.externalRunLocks");
const processLocks = ((globalThis as typeof globalThis & { [LOCKS_KEY]?: Map<string, Promise<unknown>> })[LOCKS_KEY] ??= new Map());

async function underProcessLock<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = processLocks.get(key) ?? Promise.resolve();
  const current = previous.then(work);
  const settled = current.catch(() => undefined);
  processLocks.set(key, settled);
  try {
    return await current;
  } finally {
    if (processLocks.get(key) === settled) processLocks.delete(key);
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
