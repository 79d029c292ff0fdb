import Link from "next/link";
import { DataTable } from "@/components/ui/data-table";
import { LocalTime } from "@/components/ui/local-time";
import type { RunApi } from "@/db/queries/runs";
import { StatusBadge } from "@/components/ui/run-status-badge";
import { RunFigureCells } from "./run-figure-cells";

/**
 * A few recent runs, server-rendered (the home page, an agent's page): status, what was asked,
 * where it came from, how long it took and what it cost, each linking to its run.
 */
export function RecentRuns({ runs, showAgent, testId = "recent-runs" }: { runs: RunApi[]; showAgent: boolean; testId?: string }) {
  return (
    <DataTable
      variant="boxed"
      testId={testId}
      columns={[
        { label: "Status" },
        ...(showAgent ? [{ label: "Agent" }] : []),
        { label: "Prompt" },
        { label: "Source" },
        { label: "Duration", align: "right" as const },
        { label: "Cost", align: "right" as const },
        { label: "Started" },
      ]}
    >
      {runs.map((run) => (
        <tr key={run.id} className="border-t border-zinc-100 hover:bg-zinc-50 dark:border-zinc-800 dark:hover:bg-zinc-800/50" data-testid="recent-run" data-run-id={run.id}>
          <td className="px-3 py-2">
            <Link href={`/runs/${run.id}`} className="block" aria-label={`Run ${run.id}`}>
              <StatusBadge status={run.status} outcome={run.outcome} />
            </Link>
          </td>
          {showAgent && (
            <td className="px-3 py-2">
              <Link href={`/agents/${run.agentId}`} className="hover:underline">
                {run.agentName}
              </Link>
            </td>
          )}
          <td className="max-w-xs truncate px-3 py-2">
            <Link href={`/runs/${run.id}`} className="hover:underline">
              {run.prompt}
            </Link>
            {run.blocked && <span className="ml-1 text-xs text-red-600 dark:text-red-400">blocked</span>}
          </td>
          <RunFigureCells run={run} />
          <td className="px-3 py-2 text-xs text-zinc-500 dark:text-zinc-400">
            <LocalTime value={run.createdAt} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
