/**
 * What a run's records mean for the metrics (lib/platform/metrics), recorded at the two places
 * every run passes: the event writer, once a batch is stored (so the counts equal the rows of
 * run_events), and the hook runtime's ledger sink.
 * - the batch that holds seq 1 started a run (exactly once per run, whoever wrote it);
 * - a session.end ended one, with its outcome; its duration is the loop's own `durationMs`, or
 *   for an outside session the time since the run started.
 */
import type { HookEvent } from "@/lib/core/hooks/event";
import type { LedgerEntry } from "@/lib/core/hooks/ledger";
import { getMetrics } from "@/lib/platform/metrics/metrics-registry";

export function recordWrittenEvents(events: readonly { type: string; data: Record<string, unknown> }[], lastSeq: number, startedAt?: Date): void {
  if (events.length === 0) return;
  const metrics = getMetrics();
  for (const event of events) {
    metrics.eventsWritten.inc({ type: metrics.eventTypeLabel(event.type) });
    if (event.type !== "session.end") continue;
    const outcome = metrics.outcomeLabel(typeof event.data.outcome === "string" ? event.data.outcome : "unknown");
    metrics.runsFinished.inc({ outcome });
    const durationMs = typeof event.data.durationMs === "number" ? event.data.durationMs : startedAt ? Date.now() - startedAt.getTime() : undefined;
    if (durationMs !== undefined && durationMs >= 0) metrics.runDuration.observe({ outcome }, durationMs / 1000);
  }
  if (lastSeq - events.length + 1 === 1) metrics.runsStarted.inc();
}

/** The hooks that ran for one event (the ledger rows of a run's dispatch). */
export function recordHookLedger(entries: readonly LedgerEntry[]): void {
  const metrics = getMetrics();
  for (const entry of entries) {
    if (!entry.matched) continue;
    metrics.hookDuration.observe({ action: entry.action }, entry.durationMs / 1000);
    metrics.hookVerdicts.inc({ hook: metrics.hookLabel(entry.hookId), verdict: entry.verdict ?? "none", failed: String(entry.failed) });
  }
}

/** A person's decision on an approval: how long it waited for them. */
export function recordApprovalDecision(approval: { status: string; requestedAt: Date; decidedAt: Date | null }): void {
  if (!approval.decidedAt) return;
  getMetrics().approvalDecision.observe({ decision: approval.status }, Math.max(0, approval.decidedAt.getTime() - approval.requestedAt.getTime()) / 1000);
}

/** One dispatch of an event with hooks bound (an empty ledger means none were: nothing to time). */
export function recordDispatch(event: HookEvent, result: { ledger: readonly LedgerEntry[] }, seconds: number): void {
  if (result.ledger.length > 0) getMetrics().hookDispatch.observe({ event: event.type }, seconds);
}
