import { and, asc, desc, eq, gt, inArray, sql, type SQL } from "drizzle-orm";
import { CHANNELS } from "@/lib/platform/stream/channels";
import type { Db } from "../client";
import { hookInvocations, runEvents, runMessages, runs } from "../schema";
import type { NewHookInvocation } from "./hook-invocations";

export interface NewRunEvent {
  type: string;
  data: Record<string, unknown>;
  ts?: Date;
}

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
 * Everything one step of a run leaves behind, written in one transaction: its events (gapless
 * seqs handed out by the run row's counter, which also locks the row so concurrent writers queue),
 * the hook ledger rows of its dispatches, new transcript messages, the totals it adds and the
 * loop's checkpoint. One NOTIFY announces the new high-water mark at commit (and one the run's
 * new totals), so a checkpoint never runs ahead of the record it implies, nor the record of it.
 * Returns the run's last seq.
 */
export async function appendRunRecords(
  db: Db,
  params: {
    runId: string;
    events: NewRunEvent[];
    ledger?: NewHookInvocation[];
    messages?: { stage: number; idx: number; message: Record<string, unknown> }[];
    totals?: RunTotalsDelta;
    /** The loop's checkpoint; `undefined` leaves it as it is. */
    checkpoint?: unknown;
  },
): Promise<number> {
  const { runId, events, ledger = [], messages = [], totals } = params;
  const hasCheckpoint = params.checkpoint !== undefined;
  if (events.length === 0 && ledger.length === 0 && messages.length === 0 && !totals && !hasCheckpoint) return 0;
  if (events.length === 0 && ledger.length === 0 && messages.length === 0 && !totals) {
    // A checkpoint alone is one statement: no transaction, no notice.
    const [row] = await db.update(runs).set({ checkpoint: params.checkpoint, failures: 0 }).where(eq(runs.id, runId)).returning({ lastSeq: runs.lastSeq });
    if (!row) throw new Error(`run ${runId} does not exist`);
    return row.lastSeq;
  }
  return db.transaction(async (tx) => {
    const set: Record<string, SQL | unknown> = { lastSeq: sql`${runs.lastSeq} + ${events.length}` };
    // A stored step is a successful one: recording failures count only in a row.
    if (hasCheckpoint) Object.assign(set, { checkpoint: params.checkpoint, failures: 0 });
    if (totals) {
      set.inputTokens = sql`${runs.inputTokens} + ${totals.inputTokens}`;
      set.outputTokens = sql`${runs.outputTokens} + ${totals.outputTokens}`;
      set.cachedTokens = sql`${runs.cachedTokens} + ${totals.cachedTokens}`;
      set.costUsd = sql`${runs.costUsd} + ${totals.costUsd}`;
      if (totals.toolsUsed.length > 0) {
        // Appends only the tools the row does not list yet (another request of the session may have).
        set.toolsUsed = sql`${runs.toolsUsed} || coalesce((select jsonb_agg(t) from jsonb_array_elements(${JSON.stringify(totals.toolsUsed)}::jsonb) t where not ${runs.toolsUsed} @> jsonb_build_array(t)), '[]'::jsonb)`;
      }
      if (totals.blocked) set.blocked = true;
    }
    const [counter] = await tx.update(runs).set(set).where(eq(runs.id, runId)).returning({ lastSeq: runs.lastSeq });
    if (!counter) throw new Error(`run ${runId} does not exist`);
    if (events.length > 0) {
      const first = counter.lastSeq - events.length + 1;
      const now = new Date();
      await tx.insert(runEvents).values(
        events.map((event, i) => ({ runId, seq: first + i, type: event.type, ts: event.ts ?? now, data: event.data })),
      );
    }
    if (ledger.length > 0) await tx.insert(hookInvocations).values(ledger);
    if (messages.length > 0) await tx.insert(runMessages).values(messages.map((m) => ({ runId, ...m })));
    const notices: SQL[] = [];
    if (events.length > 0) notices.push(sql`pg_notify(${CHANNELS.runEvents}, ${JSON.stringify({ runId, seq: counter.lastSeq })})`);
    if (totals) notices.push(sql`pg_notify(${CHANNELS.runs}, ${JSON.stringify({ runId })})`);
    if (notices.length > 0) await tx.execute(sql`select ${sql.join(notices, sql`, `)}`);
    return counter.lastSeq;
  });
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

/** Which of `messageIds` a run already recorded as model.post (usage read from an outside agent's transcript). */
export async function listRecordedModelMessages(db: Db, params: { runId: string; messageIds: string[] }): Promise<Set<string>> {
  if (params.messageIds.length === 0) return new Set();
  const rows = await db
    .select({ id: sql<string>`${runEvents.data}->>'messageId'` })
    .from(runEvents)
    .where(and(eq(runEvents.runId, params.runId), eq(runEvents.type, "model.post"), inArray(sql`${runEvents.data}->>'messageId'`, params.messageIds)));
  return new Set(rows.map((r) => r.id));
}
