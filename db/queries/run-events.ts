import { and, asc, desc, eq, getTableColumns, gt, inArray, lt, lte, sql } from "drizzle-orm";
import { CHANNELS } from "@/db/notify-channels";
import { commitsAlone, executeStatement, type Db } from "../client";
import { notifyAfterCommit } from "./notify-after-commit";
import { hookInvocations, runEvents, runMessages, runs } from "../schema";
import type { NewHookInvocation } from "./hook-invocations";

export interface NewRunEvent {
  type: string;
  data: Record<string, unknown>;
  ts?: Date;
}

/**
 * A ledger row of a batch; `eventIndex` instead of an `eventSeq`: the row is about the batch's
 * event at that index, whose seq the statement hands out (a dispatch that ran before its event was
 * recorded: lib/features/runs/run-event-writer.ts, recordDispatched).
 */
export type LedgerRowOfBatch = NewHookInvocation & { eventIndex?: number };

/** What a batch adds to a run's totals: deltas, so concurrent writers of one session never lose one. */
export interface RunTotalsDelta {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
  /** Tools seen for the first time. */
  toolsUsed: string[];
  /** A tool call was denied. */
  blocked: boolean;
}

/**
 * The columns every ledger row of one write usually shares (the write is one run's, and its
 * dispatch one person's): sent once as the batch's, not repeated in each row's JSON, which
 * PostgreSQL parses and the web process writes once per row (a bridged Bash call with per-person
 * rules writes three rows).
 */
const SHARED_LEDGER_COLUMNS: ReadonlySet<string> = new Set(["project_id", "run_id", "actor_key", "actor"]);

/** hook_invocations columns a ledger row fills, by the row's key (the chain's are the sealer's). */
const LEDGER_COLUMNS = Object.entries(getTableColumns(hookInvocations))
  .filter(([, column]) => !["id", "chain_seq", "hash", "created_at"].includes(column.name))
  .map(([key, column]) => ({
    key: key as keyof NewHookInvocation,
    name: column.name,
    isText: column.columnType === "PgText",
    sqlType: column.getSQLType(),
    // A null may be left out of the row's JSON (json_to_recordset reads a missing key as null); a
    // column with a default or NOT NULL is always written, as it was.
    omitNull: !column.notNull && !column.hasDefault,
    // The same in every row of one write (one run, one person): sent once for the batch.
    shared: SHARED_LEDGER_COLUMNS.has(column.name),
  }));

const SHARED_COLUMNS = LEDGER_COLUMNS.filter((column) => column.shared);

/**
 * A ledger row as json_to_recordset reads it: keyed by column name, without its nulls and
 * without the columns the batch shares (`shared`). Text goes in inside JSON, which refuses a lone
 * surrogate that a text parameter would have turned into U+FFFD: the same replacement is made
 * here, so a hook's odd output is stored as it was before.
 */
function ledgerJson(row: LedgerRowOfBatch, shared: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (row.eventIndex !== undefined) out.event_index = row.eventIndex;
  for (const { key, name, isText, omitNull } of LEDGER_COLUMNS) {
    const value = row[key];
    if (value === undefined || (value === null && omitNull) || (shared !== undefined && name in shared)) continue;
    out[name] = isText && typeof value === "string" ? value.toWellFormed() : value;
  }
  if (row.createdAt) out.created_at = row.createdAt;
  return out;
}

/**
 * The shared columns whose value is the same in every row (by identity: the rows of one dispatch
 * hold one actor object), keyed by column name; undefined when there is no row. A column that
 * differs between rows stays in each row.
 */
function sharedLedgerValues(rows: readonly LedgerRowOfBatch[]): Record<string, unknown> | undefined {
  if (rows.length === 0) return undefined;
  const shared: Record<string, unknown> = {};
  for (const { key, name, isText } of SHARED_COLUMNS) {
    const value = rows[0][key] ?? null;
    if (rows.every((row) => (row[key] ?? null) === value)) shared[name] = isText && typeof value === "string" ? value.toWellFormed() : value;
  }
  return shared;
}

/** A ledger column's value in the insert: the row's own, its write's shared one, or the event's seq. */
function ledgerValueSql(column: (typeof LEDGER_COLUMNS)[number]): string {
  if (column.name === "event_seq") return `coalesce(l.event_seq, k.last_seq - k.added + l.event_index + 1)`;
  return column.shared ? `coalesce(l."${column.name}", (w.shared)."${column.name}")` : `l."${column.name}"`;
}

/**
 * The rows of a JSON array parameter as `alias`, with their place in it as `o`: the inserts keep
 * the order they were given in (a ledger row's id follows it: the chain seals rows in id order),
 * which the joins of a batch would not.
 */
function ordered(param: string, columns: [name: string, type: string][], alias: string): string {
  const typed = columns.map(([name, type]) => `${name} ${type}`).join(", ");
  return `rows from (json_to_recordset(${param}::json) as (${typed})) with ordinality as ${alias}(${columns.map(([name]) => name).join(", ")}, o)`;
}

/**
 * The one statement of appendRunRecords, written to be batched (db/statement-batches.ts): each
 * parameter is a JSON array, `$1` one element per write (its run, what it adds to the run row,
 * its expectation), `$2`-`$4` its events, ledger rows and messages, each carrying its write's run
 * (`r`). A group's writes of different runs go as one execution, so its fixed costs (the
 * executor of five CTEs started and ended, the plan checked) are paid once for them all: they
 * were a quarter of PostgreSQL's CPU a hook call when each call ran it alone. A run appears once
 * in an execution (the batch's rule), so the UPDATE ... FROM moves each run's counter once. Its
 * text never changes, so it is prepared once per connection. A data-modifying CTE runs whether or
 * not it is read; each insert joins `counter`, so nothing is written for a run that does not
 * exist or whose expectation no longer holds. One row per write stored, keyed by its run.
 */
const APPEND_RUN_RECORDS = `
  with writes as (
    -- A write's shared ledger columns made a row once here: joined per ledger row, the record was
    -- built again for each (about a tenth of the database's extra work a call for per-person rows).
    select w.*, s as shared from json_to_recordset($1::json) as w(
      r uuid, added integer, ledger_rows integer, has_checkpoint boolean, checkpoint jsonb, has_totals boolean,
      input_tokens integer, output_tokens integer, cached_tokens integer, cost_usd double precision, tools_used jsonb, blocked boolean,
      notify boolean, has_expect boolean, expect_hooks text, expect_agent text, ledger_shared jsonb)
    cross join lateral jsonb_populate_record(null::hook_invocations, w.ledger_shared) s
  ),
  counter as (
    update runs set
      last_seq = runs.last_seq + w.added,
      -- A stored step is a successful one: recording failures count only in a row.
      checkpoint = case when w.has_checkpoint then w.checkpoint else runs.checkpoint end,
      failures = case when w.has_checkpoint then 0 else runs.failures end,
      input_tokens = runs.input_tokens + w.input_tokens,
      output_tokens = runs.output_tokens + w.output_tokens,
      cached_tokens = runs.cached_tokens + w.cached_tokens,
      cost_usd = runs.cost_usd + w.cost_usd,
      -- Appends only the tools the row does not list yet (another request of the session may have).
      tools_used = runs.tools_used || coalesce((select jsonb_agg(t) from jsonb_array_elements(w.tools_used) t where not runs.tools_used @> jsonb_build_array(t)), '[]'::jsonb),
      blocked = runs.blocked or w.blocked
    from writes w
    where runs.id = w.r
      -- A call decided on what its process remembered of the session (RecordExpectation) is
      -- written only if that still holds; else nothing is, and its caller decides again.
      and (not w.has_expect or (
        runs.status = 'running' and not runs.cancel_requested
        and (select g.n::text from hook_generation g where g.id = 1) = w.expect_hooks
        and (select a.updated_at::text from agents a where a.id = runs.agent_id) = w.expect_agent))
    returning runs.id as r, runs.last_seq as last_seq, w.added as added
  ),
  new_events as (
    insert into run_events (run_id, seq, type, ts, data)
    select e.r, k.last_seq - k.added + e.n, e.type, e.ts, e.data
    from ${ordered("$2", [["r", "uuid"], ["n", "integer"], ["type", "text"], ["ts", "timestamptz"], ["data", "jsonb"]], "e")}
    join counter k on k.r = e.r
    order by e.o
  ),
  new_ledger as (
    insert into hook_invocations (${LEDGER_COLUMNS.map((c) => `"${c.name}"`).join(", ")}, created_at)
    select ${LEDGER_COLUMNS.map(ledgerValueSql).join(", ")}, coalesce(l.created_at, now())
    from ${ordered("$3", [["r", "uuid"], ...LEDGER_COLUMNS.map((c): [string, string] => [`"${c.name}"`, c.sqlType]), ["event_index", "integer"], ["created_at", "timestamptz"]], "l")}
    join counter k on k.r = l.r
    join writes w on w.r = l.r
    order by l.o
  ),
  new_messages as (
    insert into run_messages (run_id, stage, idx, message)
    select m.r, m.stage, m.idx, m.message
    from ${ordered("$4", [["r", "uuid"], ["stage", "integer"], ["idx", "integer"], ["message", "jsonb"]], "m")}
    join counter k on k.r = m.r
    order by m.o
  )
  select k.r as batch_key, k.last_seq, k.added, w.has_totals,
         case when w.notify and (k.added > 0 or w.ledger_rows > 0) then pg_notify('${CHANNELS.runEvents}', json_build_object('runId', k.r, 'seq', k.last_seq)::text) end as events_notice,
         case when w.notify and w.has_totals then pg_notify('${CHANNELS.runs}', json_build_object('runId', k.r)::text) end as runs_notice
  from counter k join writes w on w.r = k.r`;

/**
 * What a bridged call was decided on without reading it (lib/features/bridge/session-cache.ts):
 * its run running and not asked to cancel, the hooks' generation and the agent's last change as
 * remembered. The call's records are written only if all of that still holds at the write.
 */
export interface RecordExpectation {
  hooksGeneration: string;
  agentVersion: string;
}

/** A write under a RecordExpectation that no longer held: nothing was written. */
export class StaleRecordError extends Error {
  constructor(runId: string) {
    super(`run ${runId} changed since the call was decided (its state, its hooks or its agent): nothing was written`);
    this.name = "StaleRecordError";
  }
}

/**
 * A checkpoint already serialized: the run's checkpoint store takes its snapshot of the loop's
 * state as JSON text (a copy and the form it is stored in, at once).
 */
export class CheckpointJson {
  constructor(readonly text: string) {}
}

/**
 * Everything one step of a run leaves behind, written by one statement (so atomically, in one
 * round trip): its events (gapless seqs handed out by the run row's counter, whose row lock also
 * makes concurrent writers of one session queue), the hook ledger rows of its dispatches, new
 * transcript messages, the totals it adds and the loop's checkpoint. One NOTIFY announces the new
 * high-water mark at commit (also when only ledger rows were added: an approval's row, written
 * when it settles, reaches the run's watchers too), and one the run's new totals, so a checkpoint
 * never runs ahead of the record it implies, nor the record of it. Returns the run's last seq.
 */
export async function appendRunRecords(
  db: Db,
  params: {
    runId: string;
    events: NewRunEvent[];
    ledger?: LedgerRowOfBatch[];
    messages?: { stage: number; idx: number; message: Record<string, unknown> }[];
    totals?: RunTotalsDelta;
    /** The loop's checkpoint (a value, or CheckpointJson); `undefined` leaves it as it is. */
    checkpoint?: unknown;
    /** Write only while this holds (else StaleRecordError, and nothing is written). */
    expect?: RecordExpectation;
  },
): Promise<number> {
  const { runId, events, ledger = [], messages = [], totals } = params;
  const hasCheckpoint = params.checkpoint !== undefined;
  if (events.length === 0 && ledger.length === 0 && messages.length === 0 && !totals && !hasCheckpoint) return 0;
  const now = new Date();
  // On PostgreSQL's pool the notices follow the commit instead of riding in it: a transaction that
  // NOTIFYs holds the cluster's notify lock through its commit's WAL flush, so concurrent appends
  // committed one fsync at a time (3x fewer hook calls per second). Inside a transaction, and on
  // PGlite (one process, its own group commit), they stay in the statement.
  const afterCommit = commitsAlone(db);
  const shared = sharedLedgerValues(ledger);
  // JSON written by hand around what is JSON already: the run's id (a uuid) keys every element,
  // and a checkpoint the loop serialized goes in as its text.
  const key = `"r":${JSON.stringify(runId)}`;
  const checkpoint = !hasCheckpoint ? "null" : params.checkpoint instanceof CheckpointJson ? params.checkpoint.text : JSON.stringify(params.checkpoint);
  const write = {
    added: events.length,
    ledger_rows: ledger.length,
    has_checkpoint: hasCheckpoint,
    has_totals: totals !== undefined,
    input_tokens: totals?.inputTokens ?? 0,
    output_tokens: totals?.outputTokens ?? 0,
    cached_tokens: totals?.cachedTokens ?? 0,
    cost_usd: totals?.costUsd ?? 0,
    tools_used: totals?.toolsUsed ?? [],
    blocked: totals?.blocked ?? false,
    notify: !afterCommit,
    has_expect: params.expect !== undefined,
    expect_hooks: params.expect?.hooksGeneration ?? null,
    expect_agent: params.expect?.agentVersion ?? null,
    ledger_shared: shared ?? {},
  };
  const keyed = (json: string) => (json === "{}" ? `{${key}}` : `{${key},${json.slice(1)}`);
  const rows = await executeStatement<{ last_seq: number; added: number; has_totals: boolean }>(
    db,
    APPEND_RUN_RECORDS,
    [
      `[{${key},"checkpoint":${checkpoint},${JSON.stringify(write).slice(1)}]`,
      `[${events.map((e, i) => keyed(JSON.stringify({ n: i + 1, type: e.type, ts: e.ts ?? now, data: e.data }))).join(",")}]`,
      `[${ledger.map((row) => keyed(JSON.stringify(ledgerJson(row, shared)))).join(",")}]`,
      `[${messages.map((m) => keyed(JSON.stringify(m))).join(",")}]`,
    ],
    { batchKey: runId },
  );
  if (rows.length === 0) throw params.expect ? new StaleRecordError(runId) : new Error(`run ${runId} does not exist`);
  const lastSeq = Number(rows[0].last_seq);
  if (afterCommit) {
    if (Number(rows[0].added) > 0 || ledger.length > 0) notifyAfterCommit(db, CHANNELS.runEvents, runId, JSON.stringify({ runId, seq: lastSeq }));
    if (rows[0].has_totals) notifyAfterCommit(db, CHANNELS.runs, runId, JSON.stringify({ runId }));
  }
  return lastSeq;
}

/** Appends events alone (see appendRunRecords). */
export async function appendRunEvents(db: Db, params: { runId: string; events: NewRunEvent[] }): Promise<number> {
  return appendRunRecords(db, params);
}

/** A run's stored transcript, by stage, oldest first. */
export async function listRunMessages(db: Db, params: { runId: string }) {
  return db
    .select({ stage: runMessages.stage, idx: runMessages.idx, message: runMessages.message })
    .from(runMessages)
    .where(eq(runMessages.runId, params.runId))
    .orderBy(asc(runMessages.stage), asc(runMessages.idx));
}

export async function listRunEventsAfter(db: Db, params: { runId: string; after: number; limit: number }) {
  return db
    .select({ seq: runEvents.seq, type: runEvents.type, ts: runEvents.ts, data: runEvents.data })
    .from(runEvents)
    .where(and(eq(runEvents.runId, params.runId), gt(runEvents.seq, params.after)))
    .orderBy(asc(runEvents.seq))
    .limit(params.limit);
}

/** A run's tool calls (tool.pre) since `since`, newest first: what the session did before (session rules). */
export async function listRecentToolCalls(db: Db, params: { runId: string; since: Date; limit: number }) {
  return db
    .select({ data: runEvents.data, ts: runEvents.ts })
    .from(runEvents)
    .where(and(eq(runEvents.runId, params.runId), eq(runEvents.type, "tool.pre"), gt(runEvents.ts, params.since)))
    .orderBy(desc(runEvents.seq))
    .limit(params.limit);
}

/** The last `limit` events of a run, oldest first: the run's recent context. */
export async function listRunEventsTail(db: Db, params: { runId: string; limit: number }) {
  const rows = await db
    .select({ seq: runEvents.seq, type: runEvents.type, ts: runEvents.ts, data: runEvents.data })
    .from(runEvents)
    .where(eq(runEvents.runId, params.runId))
    .orderBy(desc(runEvents.seq))
    .limit(params.limit);
  return rows.reverse();
}

/**
 * The id of the newest tool call a run announced (`tool.pre`) for this tool with this input: for
 * an outside agent's event about the call that does not name it (Claude Code's PermissionRequest).
 */
export async function findAnnouncedToolCallId(db: Db, params: { runId: string; toolName: string; toolInput: unknown; contained?: boolean }): Promise<string | undefined> {
  const input = JSON.stringify(params.toolInput ?? {});
  const [row] = await db
    .select({ toolCallId: sql<string | null>`${runEvents.data}->>'toolCallId'` })
    .from(runEvents)
    .where(
      and(
        eq(runEvents.runId, params.runId),
        eq(runEvents.type, "tool.pre"),
        sql`${runEvents.data}->>'toolName' = ${params.toolName}`,
        // `contained`: the announced input holds this one (an agent that repeats only part of it).
        params.contained ? sql`${runEvents.data}->'toolInput' @> ${input}::jsonb` : sql`${runEvents.data}->'toolInput' = ${input}::jsonb`,
      ),
    )
    .orderBy(desc(runEvents.seq))
    .limit(1);
  return row?.toolCallId ?? undefined;
}

/** Which of `messageIds` a run already recorded as model.post (usage read from an outside agent's transcript). */
/**
 * Which of `keys` a run already recorded as `type` events, by the event's `field`: a report that
 * repeats (a transcript read again at every turn's end) is recorded once. Model calls are
 * `model.post` by `messageId`; a local hook's blocks `hook.local` by `toolCallId`.
 */
export async function listRecordedEventKeys(db: Db, params: { runId: string; type: "model.post" | "hook.local"; field: "messageId" | "toolCallId"; keys: string[] }): Promise<Set<string>> {
  if (params.keys.length === 0) return new Set();
  const key = sql<string>`${runEvents.data}->>${params.field}`;
  const rows = await db
    .select({ id: key })
    .from(runEvents)
    .where(and(eq(runEvents.runId, params.runId), eq(runEvents.type, params.type), inArray(key, params.keys)));
  return new Set(rows.map((r) => r.id));
}


// ---- a run's record read back as spans (lib/features/runs/telemetry) ------------------------

const eventColumns = { seq: runEvents.seq, type: runEvents.type, ts: runEvents.ts, data: runEvents.data };

/** One tool call's events through `throughSeq` (its tool.pre, approvals, result or denial), oldest first. */
export async function listToolCallEvents(db: Db, params: { runId: string; toolCallId: string; throughSeq: number }) {
  return db
    .select(eventColumns)
    .from(runEvents)
    .where(and(eq(runEvents.runId, params.runId), lte(runEvents.seq, params.throughSeq), sql`${runEvents.data}->>'toolCallId' = ${params.toolCallId}`))
    .orderBy(asc(runEvents.seq));
}

/** The last event of `type` before `beforeSeq` (a model call's model.pre, found from its model.post). */
export async function findEventBefore(db: Db, params: { runId: string; type: string; beforeSeq: number }) {
  const [row] = await db
    .select(eventColumns)
    .from(runEvents)
    .where(and(eq(runEvents.runId, params.runId), lt(runEvents.seq, params.beforeSeq), eq(runEvents.type, params.type)))
    .orderBy(desc(runEvents.seq))
    .limit(1);
  return row;
}

/**
 * A run's outline: its events of `types` with their data, and of `idTypes` with only the tool call
 * they belong to (`toolCallId`, `toolName`, `by`), so a long session's tool inputs and outputs are
 * not read to find which calls never ended.
 */
export async function listRunOutline(db: Db, params: { runId: string; types: string[]; idTypes: string[] }) {
  return db
    .select({
      seq: runEvents.seq,
      type: runEvents.type,
      ts: runEvents.ts,
      data: sql<Record<string, unknown>>`case when ${inArray(runEvents.type, params.idTypes)}
        then jsonb_strip_nulls(jsonb_build_object('toolCallId', ${runEvents.data}->'toolCallId', 'toolName', ${runEvents.data}->'toolName', 'by', ${runEvents.data}->'by'))
        else ${runEvents.data} end`,
    })
    .from(runEvents)
    .where(and(eq(runEvents.runId, params.runId), inArray(runEvents.type, [...params.types, ...params.idTypes])))
    .orderBy(asc(runEvents.seq));
}
