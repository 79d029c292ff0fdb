/** The hook ledger export: the columns of a CSV row, and every matching row read page by page. */
import type { Db } from "@/db/client";
import { listHookLedger, type HookLedgerFilters, type HookLedgerRow } from "@/db/queries/hook-invocations";
import { keysetPages, type ExportColumn } from "@/lib/platform/export/export-response";

const PAGE_SIZE = 1000;

export const LEDGER_EXPORT_COLUMNS: readonly ExportColumn<HookLedgerRow>[] = [
  { header: "id", value: (r) => r.id },
  { header: "createdAt", value: (r) => r.createdAt },
  { header: "runId", value: (r) => r.runId },
  { header: "agentName", value: (r) => r.agentName },
  { header: "actor", value: (r) => r.actor?.label },
  { header: "actorKey", value: (r) => r.actorKey },
  { header: "actorRole", value: (r) => r.actor?.role },
  { header: "actorTier", value: (r) => r.actor?.tier },
  { header: "actorSubagent", value: (r) => r.actor?.subagent?.id },
  { header: "actorHostReported", value: (r) => r.actor?.host },
  { header: "actorOsUserReported", value: (r) => r.actor?.osUser },
  { header: "eventSeq", value: (r) => r.eventSeq },
  { header: "event", value: (r) => r.event },
  { header: "toolName", value: (r) => r.toolName },
  { header: "toolCallId", value: (r) => r.toolCallId },
  { header: "hookKey", value: (r) => r.hookKey },
  { header: "hookVersion", value: (r) => r.hookVersion },
  { header: "scope", value: (r) => r.scope },
  { header: "action", value: (r) => r.action },
  { header: "mode", value: (r) => r.mode },
  { header: "matched", value: (r) => r.matched },
  { header: "skipReason", value: (r) => r.skipReason },
  { header: "verdict", value: (r) => r.verdict },
  { header: "reason", value: (r) => r.reason },
  { header: "ignored", value: (r) => r.ignored },
  { header: "failed", value: (r) => r.failed },
  { header: "timedOut", value: (r) => r.timedOut },
  { header: "approval", value: (r) => r.approval },
  { header: "exitCode", value: (r) => r.exitCode },
  { header: "durationMs", value: (r) => r.durationMs },
  { header: "output", value: (r) => r.output },
  { header: "stdout", value: (r) => r.stdout },
  { header: "stderr", value: (r) => r.stderr },
];

export function ledgerExportPages(db: Db, filters: HookLedgerFilters): AsyncGenerator<HookLedgerRow[]> {
  return keysetPages((after) => listHookLedger(db, { ...filters, limit: PAGE_SIZE, beforeId: after?.id }), PAGE_SIZE);
}
