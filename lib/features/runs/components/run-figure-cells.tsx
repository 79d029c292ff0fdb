import { formatUsd } from "@/lib/core/hooks/event-summary";
import { formatDurationMs, runDurationMs, sourceLabel } from "./run-text";

type RunFigures = Parameters<typeof runDurationMs>[0] & { source?: string; costUsd: number };

/** A run's source, duration and cost: the same three cells wherever runs are listed. */
export function RunFigureCells({ run }: { run: RunFigures }) {
  return (
    <>
      <td className="px-3 py-2 text-xs" data-testid="run-source">
        {sourceLabel(run.source)}
      </td>
      <td className="px-3 py-2 text-right font-mono text-xs" data-testid="run-duration">
        {formatDurationMs(runDurationMs(run))}
      </td>
      <td className="px-3 py-2 text-right font-mono text-xs">{formatUsd(run.costUsd)}</td>
    </>
  );
}
