import { and, asc, desc, eq, gt, gte, ilike, inArray, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { agents, hookInvocations, runEvents, runs } from "../schema";
import { deleteChainDaysBefore } from "./chain-retention";
import { containing } from "./like-pattern";

/** A ledger row as written: its chain position and hash are the sealer's (db/queries/hash-chain.ts). */
export type NewHookInvocation = Omit<typeof hookInvocations.$inferInsert, "chainSeq" | "hash">;

/**
 * One insert per dispatch: the ledger rows of every hook considered for one event. The ledger is
 * append-only: rows go in unsealed and no query here updates or deletes them; an approval's row is
 * written once, when it settles. The periodic sealer chains them shortly after.
 */
export async function insertHookInvocations(db: Db, params: { rows: NewHookInvocation[] }) {
  if (params.rows.length === 0) return;
  await db.insert(hookInvocations).values(params.rows);
}

/** Retention: the ledger's whole UTC days before `before`, oldest first, keeping the chain verifiable. */
export async function deleteLedgerDaysBefore(db: Db, params: { before: Date }) {
  return deleteChainDaysBefore(db, { table: "hook_invocations", before: params.before });
}

/**
 * A run's ledger rows in the order they were written, those after the row `after` (an id) when
 * given, at most `limit`. Paging by id is gapless for one run: its rows are written by the
 * statement that holds the run row's lock (appendRunRecords), so their ids follow commit order.
 */
export async function listRunHookInvocations(db: Db, params: { runId: string; after?: number; limit?: number }) {
  const where = params.after ? and(eq(hookInvocations.runId, params.runId), gt(hookInvocations.id, params.after)) : eq(hookInvocations.runId, params.runId);
  const query = db.select().from(hookInvocations).where(where).orderBy(asc(hookInvocations.id));
  return params.limit === undefined ? query : query.limit(params.limit);
}

/** The ledger rows of some of a run's events, in the order they were written. */
export async function listHookInvocationsOfEvents(db: Db, params: { runId: string; seqs: number[] }) {
  if (params.seqs.length === 0) return [];
  return db
    .select()
    .from(hookInvocations)
    .where(and(eq(hookInvocations.runId, params.runId), inArray(hookInvocations.eventSeq, params.seqs)))
    .orderBy(asc(hookInvocations.id));
}

/** The audit search over the hook ledger ("every time `no-prod` blocked a tool this week"). */
export interface HookLedgerFilters {
  /** Only this project's rows (those its runs wrote): every search is scoped. */
  projectId: string;
  hookKey?: string;
  event?: string;
  verdict?: string;
  matched?: boolean;
  agentId?: string;
  runId?: string;
  /** `user:<id>` or `token:<id>`: one person's (or one token's) rows. */
  actorKey?: string;
  from?: Date;
  to?: Date;
  /** Text in the reason, skip reason, output or the command's stdout/stderr. */
  q?: string;
}

function ledgerConditions(f: HookLedgerFilters): SQL[] {
  const where: SQL[] = [eq(hookInvocations.projectId, f.projectId)];
  if (f.hookKey) where.push(eq(hookInvocations.hookKey, f.hookKey));
  if (f.event) where.push(eq(hookInvocations.event, f.event));
  if (f.verdict) where.push(eq(hookInvocations.verdict, f.verdict));
  if (f.matched !== undefined) where.push(eq(hookInvocations.matched, f.matched));
  if (f.agentId) where.push(eq(runs.agentId, f.agentId));
  if (f.runId) where.push(eq(hookInvocations.runId, f.runId));
  if (f.actorKey) where.push(eq(hookInvocations.actorKey, f.actorKey));
  if (f.from) where.push(gte(hookInvocations.createdAt, f.from));
  if (f.to) where.push(lte(hookInvocations.createdAt, f.to));
  if (f.q) {
    const text = containing(f.q);
    where.push(or(...[hookInvocations.reason, hookInvocations.skipReason, hookInvocations.output, hookInvocations.stdout, hookInvocations.stderr].map((c) => ilike(c, text)))!);
  }
  return where;
}

/**
 * A project's ledger, newest first (by id, which follows insertion); the cursor is the last row's
 * id. A row outlives its run (and its agent), hence the left joins.
 */
export async function listHookLedger(db: Db, params: HookLedgerFilters & { limit: number; beforeId?: number }) {
  const where = ledgerConditions(params);
  if (params.beforeId !== undefined) where.push(lt(hookInvocations.id, params.beforeId));
  // The call the row decided on, read once a row from its event (run_events is partitioned by
  // time: each lookup probes every partition's index, so one lookup for both fields).
  const call = db
    .select({ toolName: sql<string | null>`${runEvents.data}->>'toolName'`.as("tool_name"), toolCallId: sql<string | null>`${runEvents.data}->>'toolCallId'`.as("tool_call_id") })
    .from(runEvents)
    .where(and(eq(runEvents.runId, hookInvocations.runId), eq(runEvents.seq, hookInvocations.eventSeq)))
    .limit(1)
    .as("call");
  const rows = await db
    .select({ entry: hookInvocations, agentId: runs.agentId, agentName: agents.name, toolName: call.toolName, toolCallId: call.toolCallId })
    .from(hookInvocations)
    .leftJoin(runs, eq(runs.id, hookInvocations.runId))
    .leftJoin(agents, eq(agents.id, runs.agentId))
    .leftJoinLateral(call, sql`true`)
    .where(and(...where))
    .orderBy(desc(hookInvocations.id))
    .limit(params.limit);
  return rows.map((r) => ({ ...r.entry, agentId: r.agentId, agentName: r.agentName, toolName: r.toolName, toolCallId: r.toolCallId }));
}
export type HookLedgerRow = Awaited<ReturnType<typeof listHookLedger>>[number];

/** The tool of the call a ledger row decided on, read from its event (a column for the lists of rows). */
export const invocationToolName = sql<string | null>`(select e.data->>'toolName' from run_events e where e.run_id = ${hookInvocations.runId} and e.seq = ${hookInvocations.eventSeq} limit 1)`;

/**
 * The newest blocks that took effect in a project (a shadow block or one on an informational event
 * did not), with their run's agent: the home page's "recent blocks". Reads the partial index that
 * holds only such rows.
 */
export async function listRecentBlocks(db: Db, params: { projectId: string; since: Date; limit: number }) {
  const rows = await db
    .select({
      id: hookInvocations.id,
      runId: hookInvocations.runId,
      hookKey: hookInvocations.hookKey,
      event: hookInvocations.event,
      reason: hookInvocations.reason,
      createdAt: hookInvocations.createdAt,
      agentName: agents.name,
      toolName: invocationToolName,
    })
    .from(hookInvocations)
    .leftJoin(runs, eq(runs.id, hookInvocations.runId))
    .leftJoin(agents, eq(agents.id, runs.agentId))
    .where(
      and(
        eq(hookInvocations.projectId, params.projectId),
        gte(hookInvocations.createdAt, params.since),
        eq(hookInvocations.verdict, "block"),
        // Spelled as the partial index's predicate, so the planner uses it.
        sql`not ${hookInvocations.ignored}`,
      ),
    )
    .orderBy(desc(hookInvocations.createdAt), desc(hookInvocations.id))
    .limit(params.limit);
  return rows;
}

/** How many blocks took effect in a project since `since` (the partial index again). */
export async function countBlocksSince(db: Db, params: { projectId: string; since: Date }): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(hookInvocations)
    .where(and(eq(hookInvocations.projectId, params.projectId), gte(hookInvocations.createdAt, params.since), eq(hookInvocations.verdict, "block"), sql`not ${hookInvocations.ignored}`));
  return row.n;
}
