/**
 * A hook's shadow record: what it would have done on live traffic while in shadow mode (its ledger
 * rows marked shadow), for the hook's page beside the backtest the editor's test panel runs.
 */
import type { Db } from "@/db/client";
import { getHookShadowRecord } from "@/db/queries/hook-shadow";
import { runEventPath } from "./run-event-path";

/** The window the hook's page reads, as its health panel does. */
export const SHADOW_WINDOW_DAYS = 30;
const LATEST = 8;

export interface ShadowRecordView {
  windowDays: number;
  fired: number;
  wouldBlock: number;
  failed: number;
  runs: number;
  latest: { id: number; runPath: string | null; agentName: string | null; toolName: string | null; verdict: string | null; reason: string | null; failed: boolean; at: string }[];
}

export async function loadShadowRecord(db: Db, params: { projectId: string; hook: { key: string; scope: string } }): Promise<ShadowRecordView> {
  const since = new Date(Date.now() - SHADOW_WINDOW_DAYS * 24 * 3600 * 1000);
  const record = await getHookShadowRecord(db, { projectId: params.projectId, hookKey: params.hook.key, scope: params.hook.scope, since, limit: LATEST });
  return {
    windowDays: SHADOW_WINDOW_DAYS,
    fired: record.fired,
    wouldBlock: record.wouldBlock,
    failed: record.failed,
    runs: record.runs,
    latest: record.latest.map((r) => ({
      id: r.id,
      runPath: r.runId ? runEventPath(r.runId, r.eventSeq) : null,
      agentName: r.agentName,
      toolName: r.toolName,
      verdict: r.verdict,
      reason: r.reason,
      failed: r.failed,
      at: r.createdAt.toISOString(),
    })),
  };
}
