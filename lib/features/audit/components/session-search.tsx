"use client";

import { ExternalLink } from "lucide-react";
import Link from "next/link";
import { StatusBadge } from "@/components/ui/run-status-badge";
import { formatTime } from "@/components/ui/format-time";
import { formatUsd } from "@/lib/core/hooks/event-summary";
import { AgentWithActor } from "@/components/ui/run-actor";
import { buttonClass } from "@/components/ui/button";
import { ExportLinks } from "./export-links";
import { FilterBar } from "./filter-bar";
import { SelectFilter, TextFilter } from "./filter-field";
import { PagedResults, useAuditPages } from "./paged-results";
import { TIME_WINDOWS } from "./time-window";
import { useUrlFilters } from "./use-url-filters";
import { DataTable } from "@/components/ui/data-table";
import type { SessionSearchRow } from "../schema";

const FILTERS = ["q", "agent", "actor", "outcome", "blocked", "tool", "window"] as const;
const OUTCOMES = ["completed", "failed", "timeout", "cancelled", "budget", "max_turns", "skipped"];
const BLOCKED = [
  { value: "true", label: "yes" },
  { value: "false", label: "no" },
];

/** Past sessions searched by text over their events and filtered; the results export as a file. */
export function SessionSearch({ agents, people }: { agents: string[]; people: string[] }) {
  const filters = useUrlFilters(FILTERS);
  const { apiQuery, active } = filters;
  const query = useAuditPages<SessionSearchRow>("audit-sessions", "/api/v1/runs", apiQuery);

  const actions = (
    <div className="flex items-center gap-2">
      <Link href={`/runs${apiQuery ? `?${apiQuery}` : ""}`} className={buttonClass("ghost")} data-testid="open-in-runs">
        <ExternalLink className="h-4 w-4" aria-hidden />
        Open in Runs
      </Link>
      <ExportLinks endpoint="/api/v1/runs/export" query={apiQuery} testIdPrefix="export-sessions" />
    </div>
  );
  return (
    <div className="space-y-4">
      <FilterBar filters={filters} testIdPrefix="session" actions={actions}>
        <TextFilter filters={filters} name="q" label="Search sessions" placeholder="text in prompts, outputs, tool calls" width="w-64" testId="session-q" />
        <SelectFilter filters={filters} name="agent" label="Agent" any="all" options={agents} testId="session-agent" />
        <TextFilter filters={filters} name="actor" label="Person" placeholder="email" width="w-48" suggestions={people} testId="session-actor" />
        <SelectFilter filters={filters} name="outcome" label="Outcome" any="any" options={OUTCOMES} />
        <SelectFilter filters={filters} name="blocked" label="Blocked by a hook" any="either" options={BLOCKED} testId="session-blocked" />
        <SelectFilter filters={filters} name="window" label="When" options={TIME_WINDOWS} testId="session-window" />
      </FilterBar>

      <PagedResults query={query} what="sessions" filtered={active} emptyHint="Runs appear here once an agent has run." testId="sessions">
        {(runs) => (
          <DataTable variant="boxed" testId="session-list" columns={[{ label: "Started" }, { label: "Agent" }, { label: "Outcome" }, { label: "Prompt" }, { label: "Tools" }, { label: "Cost", align: "right" }]}>
                {runs.map((run) => (
                  <tr key={run.id} className="border-t border-zinc-100 hover:bg-zinc-50 dark:border-zinc-800 dark:hover:bg-zinc-800/50" data-testid="session-row">
                    <td className="whitespace-nowrap px-3 py-2 text-xs text-zinc-500">{formatTime(run.createdAt)}</td>
                    <td className="px-3 py-2">
                      <AgentWithActor agentName={run.agentName} actor={run.actor} />
                    </td>
                    <td className="px-3 py-2">
                      <StatusBadge status={run.status} outcome={run.outcome} />
                    </td>
                    <td className="max-w-sm truncate px-3 py-2">
                      <Link href={`/runs/${run.id}`} className="hover:underline" data-testid="session-link">
                        {run.prompt}
                      </Link>
                    </td>
                    <td className="px-3 py-2 font-mono text-xs">
                      {run.toolsUsed.join(", ")}
                      {run.blocked && <span className="ml-1 text-red-600 dark:text-red-400">blocked</span>}
                    </td>
                    <td className="px-3 py-2 text-right font-mono text-xs">{formatUsd(run.costUsd)}</td>
                  </tr>
                ))}
              </DataTable>
        )}
      </PagedResults>
    </div>
  );
}
