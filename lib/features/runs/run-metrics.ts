/**
 * What a run's records mean for the metrics (lib/platform/metrics), recorded where every run
 * passes: the event writer, once a batch is stored (so the counts equal the rows of run_events).
 * The hook runtime's ledger sink records its own (lib/features/hooks/hook-metrics.ts).
 * - the batch that holds seq 1 started a run (exactly once per run, whoever wrote it);
 * - a session.end ended one, with its outcome; its duration is the loop's own `durationMs`, or
 *   for an outside session the time since the run started.
 */
import { getMetrics } from "@/lib/platform/metrics/metrics-registry";
import { isEventOf } from "@/lib/core/hooks/event-payloads";

export function recordWrittenEvents(events: readonly { type: string; data: Record<string, unknown> }[], lastSeq: number, startedAt?: Date): void {
  if (events.length === 0) return;
  const metrics = getMetrics();
  for (const event of events) {
    metrics.eventsWritten.inc({ type: metrics.eventTypeLabel(event.type) });
    if (!isEventOf(event, "session.end")) continue;
    const outcome = metrics.outcomeLabel(event.data.outcome ?? "unknown");
    metrics.runsFinished.inc({ outcome });
    const durationMs = event.data.durationMs ?? (startedAt ? Date.now() - startedAt.getTime() : undefined);
    if (durationMs !== undefined && durationMs >= 0) metrics.runDuration.observe({ outcome }, durationMs / 1000);
  }
  if (lastSeq - events.length + 1 === 1) metrics.runsStarted.inc();
}
