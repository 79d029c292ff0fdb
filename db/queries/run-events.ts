import { and, asc, desc, eq, gt, sql } from "drizzle-orm";
import { CHANNELS } from "@/lib/stream/channels";
import type { Db } from "../client";
import { runEvents, runs } from "../schema";

export interface NewRunEvent {
  type: string;
  data: Record<string, unknown>;
  ts?: Date;
}

/**
 * Appends events with gapless seqs in one transaction: the run row's counter hands out the
 * range (and locks the run row, so concurrent writers queue instead of colliding), the rows are
 * inserted, and one NOTIFY announces the new high-water mark at commit.
 */
export async function appendRunEvents(db: Db, params: { runId: string; events: NewRunEvent[] }): Promise<number> {
  if (params.events.length === 0) return 0;
  return db.transaction(async (tx) => {
    const [counter] = await tx
      .update(runs)
      .set({ lastSeq: sql`${runs.lastSeq} + ${params.events.length}` })
      .where(eq(runs.id, params.runId))
      .returning({ lastSeq: runs.lastSeq });
    if (!counter) throw new Error(`run ${params.runId} does not exist`);
    const first = counter.lastSeq - params.events.length + 1;
    const now = new Date();
    await tx.insert(runEvents).values(
      params.events.map((event, i) => ({
        runId: params.runId,
        seq: first + i,
        type: event.type,
        ts: event.ts ?? now,
        data: event.data,
      })),
    );
    await tx.execute(sql`select pg_notify(${CHANNELS.runEvents}, ${JSON.stringify({ runId: params.runId, seq: counter.lastSeq })})`);
    return counter.lastSeq;
  });
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
