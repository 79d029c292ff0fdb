/** Decisions taken offline by the `hookplane` CLI (db/schema.ts offlineDecisions). */
import type { Db } from "../client";
import { offlineDecisions } from "../schema";
import { appendRunRecords, type NewRunEvent, type RunTotalsDelta } from "./run-events";

/**
 * The entry's id and its events in one transaction: "duplicate" when the id was recorded before
 * (a replay), and then nothing is appended.
 */
export async function recordOfflineEvents(
  db: Db,
  params: {
    id: string;
    projectId: string;
    runId: string;
    agentId: string;
    decision: "allowed" | "blocked";
    failMode: "closed" | "open" | null;
    againstPolicy: boolean;
    decidedAt: Date;
    events: NewRunEvent[];
    totals?: RunTotalsDelta;
  },
): Promise<"recorded" | "duplicate"> {
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const inserted = await tx
      .insert(offlineDecisions)
      .values({
        id: params.id,
        projectId: params.projectId,
        runId: params.runId,
        agentId: params.agentId,
        decision: params.decision,
        failMode: params.failMode,
        againstPolicy: params.againstPolicy,
        decidedAt: params.decidedAt,
      })
      .onConflictDoNothing()
      .returning({ id: offlineDecisions.id });
    if (inserted.length === 0) return "duplicate";
    await appendRunRecords(tx, { runId: params.runId, events: params.events, totals: params.totals });
    return "recorded";
  });
}
