/**
 * One retention pass (README.md here says what goes and when): whole run_events partitions of
 * expired runs dropped, the remaining expired runs deleted a batch at a time with their events,
 * then the hook ledger's and the audit log's oldest whole days (partitions first, rows after),
 * and one audit row saying what went. `now` is a parameter so tests and benchmarks can move time.
 *
 * `ensureRetentionPartitions` keeps partitions made ahead of time: a day each while every window
 * that applies to the table is finite and at most PARTITION_BY_DAY_UP_TO days (so old days can be
 * dropped whole), a month each otherwise (nothing would be dropped anyway, and every partition costs
 * each per-run read an index probe).
 */
import type { Db } from "@/db/client";
import { deleteAuditDaysBefore, logAudit } from "@/db/queries/audit";
import { startOfUtcDay } from "@/db/queries/chain-retention";
import { deleteLedgerDaysBefore } from "@/db/queries/hook-invocations";
import { ensurePartitions, type PartitionPeriod } from "@/db/queries/partitions";
import {
  deleteEventsOfRuns,
  deleteRunRows,
  dropExpiredEventPartitions,
  dropLedgerPartitionsBefore,
  listExpiredRuns,
  newestRunCutoff,
  oldestRunCutoff,
  type RunWindow,
} from "@/db/queries/retention";
import { getRetentionSettings } from "./retention-settings";

const DAY_MS = 86_400_000;
/** Partitions are made this far ahead. */
const PARTITIONS_AHEAD_MS = 3 * DAY_MS;
/**
 * Longer windows get monthly partitions: every partition costs each per-run read (the stream, the
 * run page) an index probe, measured at ~3.5 µs on PostgreSQL 15 and ~35 µs on PGlite per partition.
 */
export const PARTITION_BY_DAY_UP_TO = 31;
/** Expired runs listed at a time, and deleted together (with their events) in one batch. */
const RUN_LIST = 1_000;
const RUN_BATCH = 100;

export interface RetentionReport {
  at: string;
  /** The UTC midnights before which rows went; absent where the window is forever. */
  cutoffs: { runs?: string; ledger?: string; audit?: string };
  runs: { deleted: number; events: number; partitionsDropped: string[] };
  ledger: { deleted: number; partitionsDropped: string[] };
  audit: { deleted: number };
}

function cutoff(today: Date, days: number): Date | undefined {
  return days > 0 ? new Date(today.getTime() - days * DAY_MS) : undefined;
}

function periodFor(today: Date, oldestCutoff: Date | undefined): PartitionPeriod {
  return oldestCutoff && today.getTime() - oldestCutoff.getTime() <= PARTITION_BY_DAY_UP_TO * DAY_MS ? "day" : "month";
}

/** Creates the partitions of the next days (or months) that do not exist yet; returns their names. */
export async function ensureRetentionPartitions(db: Db, params: { now?: Date } = {}): Promise<string[]> {
  const now = params.now ?? new Date();
  const today = startOfUtcDay(now);
  const settings = await getRetentionSettings(db);
  const until = new Date(now.getTime() + PARTITIONS_AHEAD_MS);
  const eventsCutoff = await oldestRunCutoff(db, { window: { today, defaultDays: settings.runDays } });
  return [
    ...(await ensurePartitions(db, { table: "run_events", period: periodFor(today, eventsCutoff), until })),
    ...(await ensurePartitions(db, { table: "hook_invocations", period: periodFor(today, cutoff(today, settings.ledgerDays)), until })),
  ];
}

async function deleteExpiredRuns(db: Db, window: RunWindow): Promise<{ runs: number; events: number }> {
  let runs = 0;
  let events = 0;
  for (;;) {
    const expired = await listExpiredRuns(db, { window, limit: RUN_LIST });
    for (let i = 0; i < expired.length; i += RUN_BATCH) {
      const batch = expired.slice(i, i + RUN_BATCH);
      const span = {
        from: new Date(Math.min(...batch.map((r) => r.createdAt.getTime()))),
        to: new Date(Math.max(...batch.map((r) => r.finishedAt.getTime()))),
      };
      // Events first, in short statements; then the run rows (messages and approvals go with them).
      events += await deleteEventsOfRuns(db, { runIds: batch.map((r) => r.id), span });
      runs += await deleteRunRows(db, { runIds: batch.map((r) => r.id) });
    }
    if (expired.length < RUN_LIST) return { runs, events };
  }
}

export async function applyRetention(db: Db, params: { now?: Date } = {}): Promise<RetentionReport> {
  const now = params.now ?? new Date();
  const today = startOfUtcDay(now);
  const settings = await getRetentionSettings(db);
  const window: RunWindow = { today, defaultDays: settings.runDays };
  const report: RetentionReport = {
    at: now.toISOString(),
    cutoffs: {},
    runs: { deleted: 0, events: 0, partitionsDropped: [] },
    ledger: { deleted: 0, partitionsDropped: [] },
    audit: { deleted: 0 },
  };
  const runsCutoff = cutoff(today, settings.runDays);
  if (runsCutoff) report.cutoffs.runs = runsCutoff.toISOString();

  // Partitions of days some window has passed: dropped whole when all their runs expired,
  // rewritten with their few kept runs' events otherwise (an agent keeping forever does not stop it).
  const newest = await newestRunCutoff(db, { window });
  if (newest) {
    const dropped = await dropExpiredEventPartitions(db, { window, before: newest });
    report.runs.partitionsDropped = dropped.partitions;
    report.runs.events += dropped.rows;
  }
  const deleted = await deleteExpiredRuns(db, window);
  report.runs.deleted = deleted.runs;
  report.runs.events += deleted.events;

  const ledgerCutoff = cutoff(today, settings.ledgerDays);
  if (ledgerCutoff) {
    report.cutoffs.ledger = ledgerCutoff.toISOString();
    const dropped = await dropLedgerPartitionsBefore(db, { before: ledgerCutoff });
    const rows = await deleteLedgerDaysBefore(db, { before: ledgerCutoff });
    report.ledger = { deleted: dropped.rows + rows.deleted, partitionsDropped: dropped.partitions };
  }
  const auditCutoff = cutoff(today, settings.auditDays);
  if (auditCutoff) {
    report.cutoffs.audit = auditCutoff.toISOString();
    report.audit.deleted = (await deleteAuditDaysBefore(db, { before: auditCutoff })).deleted;
  }

  const anything = report.runs.deleted + report.runs.events + report.runs.partitionsDropped.length + report.ledger.deleted + report.ledger.partitionsDropped.length + report.audit.deleted;
  // Written after the audit log's own retention, so this row stays.
  if (anything > 0) await logAudit(db, { projectId: null, actor: "retention", action: "retention.apply", entityType: "retention", after: report });
  return report;
}
