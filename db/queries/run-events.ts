import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "../client";
import { runEvents } from "../schema";

export async function listRunEventsAfter(db: Db, params: { runId: string; after: number; limit: number }) {
  return db
    .select({ seq: runEvents.seq, type: runEvents.type, ts: runEvents.ts, data: runEvents.data })
    .from(runEvents)
    .where(and(eq(runEvents.runId, params.runId), gt(runEvents.seq, params.after)))
    .orderBy(asc(runEvents.seq))
    .limit(params.limit);
}
