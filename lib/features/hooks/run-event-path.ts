/**
 * The link to a run's page at one of its events: the run timeline opens and scrolls to
 * `#event-<seq>` (lib/features/runs/components/run-timeline.tsx reads it).
 */
export function runEventPath(runId: string, seq?: number | null): string {
  return `/runs/${runId}${seq != null ? `#event-${seq}` : ""}`;
}
