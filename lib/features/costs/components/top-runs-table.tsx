import Link from "next/link";
import { OUTCOME_STYLES } from "@/components/ui/run-status-badge";
import { formatTime } from "@/components/ui/format-time";
import { formatUsd } from "@/lib/core/hooks/event-summary";
import { EmptyState } from "@/components/ui/empty-state";
import type { CostReport } from "../schema";
import { DataTable } from "@/components/ui/data-table";

export function TopRunsTable({ runs }: { runs: CostReport["topRuns"] }) {
  if (runs.length === 0) return <EmptyState title="No runs in this window">Runs and their cost appear here as they finish.</EmptyState>;
  return (
    <DataTable variant="plain" testId="top-runs" columns={[{ label: "Agent" }, { label: "Prompt" }, { label: "Outcome" }, { label: "Started" }, { label: "Cost", align: "right" }]}>
        {runs.map((run) => (
          <tr key={run.id} className="border-t border-zinc-100 hover:bg-zinc-50 dark:border-zinc-800 dark:hover:bg-zinc-800/50" data-testid="top-run-row" data-run-id={run.id}>
            <td className="py-1.5 pr-3">{run.agentName}</td>
            <td className="max-w-xs truncate py-1.5 pr-3">
              <Link href={`/runs/${run.id}`} className="text-indigo-600 hover:underline dark:text-indigo-400">
                {run.prompt || "(no prompt)"}
              </Link>
            </td>
            <td className="py-1.5 pr-3">
              {run.outcome ? <span className={`rounded px-2 py-0.5 text-xs ${OUTCOME_STYLES[run.outcome] ?? OUTCOME_STYLES.queued}`}>{run.outcome}</span> : <span className="text-xs text-zinc-500">in progress</span>}
            </td>
            <td className="py-1.5 pr-3 text-zinc-500">{formatTime(run.createdAt)}</td>
            <td className="py-1.5 text-right font-mono text-xs" data-testid="top-run-cost">
              {formatUsd(run.costUsd)}
            </td>
          </tr>
        ))}
      </DataTable>
  );
}
