/** What the hook runtime's ledger sink records for the metrics (lib/platform/metrics): every dispatch, a run's or a test's. */
import type { HookEvent } from "@/lib/core/hooks/event";
import type { LedgerEntry } from "@/lib/core/hooks/ledger";
import { getMetrics } from "@/lib/platform/metrics/metrics-registry";

/** The hooks that ran for one event (the ledger rows of a run's dispatch). */
export function recordHookLedger(entries: readonly LedgerEntry[]): void {
  const metrics = getMetrics();
  for (const entry of entries) {
    if (!entry.matched) continue;
    metrics.hookDuration.observe({ action: entry.action }, entry.durationMs / 1000);
    metrics.hookVerdicts.inc({ hook: metrics.hookLabel(entry.hookId), verdict: entry.verdict ?? "none", failed: String(entry.failed) });
  }
}

/** One dispatch of an event with hooks bound (an empty ledger means none were: nothing to time). */
export function recordDispatch(event: HookEvent, result: { ledger: readonly LedgerEntry[] }, seconds: number): void {
  if (result.ledger.length > 0) getMetrics().hookDispatch.observe({ event: event.type }, seconds);
}
