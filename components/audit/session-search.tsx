"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { ExternalLink } from "lucide-react";
import Link from "next/link";
import { StatusBadge, formatTime, formatUsd } from "@/components/runs/run-format";
import type { RunSummary } from "@/components/runs/run-view";
import { buttonClass } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { apiFetch } from "@/lib/client/api-fetch";
import { ExportLinks } from "./export-links";
import { FilterField } from "./filter-field";
import { PagedResults, type Page } from "./paged-results";
import { TIME_WINDOWS } from "./time-window";
import { useUrlFilters } from "./use-url-filters";
import { DataTable } from "@/components/ui/data-table";

const FILTERS = ["q", "agent", "outcome", "blocked", "tool", "window"] as const;
const OUTCOMES = ["completed", "failed", "timeout", "cancelled", "budget", "max_turns", "skipped"];

type SessionRow = RunSummary & { toolsUsed: string[]; blocked: boolean };

/** Past sessions searched by text over their events and filtered; the results export as a file. */
export function SessionSearch({ agents }: { agents: string[] }) {
  const { values, apiQuery, active, setFilter } = useUrlFilters(FILTERS);

  const query = useInfiniteQuery({
    queryKey: ["audit-sessions", apiQuery],
    queryFn: ({ pageParam }) =>
      apiFetch<Page<SessionRow>>(`/api/v1/runs?limit=50${apiQuery ? `&${apiQuery}` : ""}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ""}`),
    initialPageParam: "",
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <form
          className="flex flex-wrap items-end gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            setFilter("q", String(new FormData(e.currentTarget).get("q") ?? "").trim());
          }}
          data-testid="session-filters"
        >
          <FilterField label="Search sessions">
            <input name="q" key={values.q} defaultValue={values.q} placeholder="text in prompts, outputs, tool calls" className={`${inputClass} w-64`} data-testid="session-q" />
          </FilterField>
          <FilterField label="Agent">
            <select value={values.agent} onChange={(e) => setFilter("agent", e.target.value)} className={inputClass} data-testid="session-agent">
              <option value="">all</option>
              {agents.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          </FilterField>
          <FilterField label="Outcome">
            <select value={values.outcome} onChange={(e) => setFilter("outcome", e.target.value)} className={inputClass}>
              <option value="">any</option>
              {OUTCOMES.map((o) => (
                <option key={o}>{o}</option>
              ))}
            </select>
          </FilterField>
          <FilterField label="Blocked by a hook">
            <select value={values.blocked} onChange={(e) => setFilter("blocked", e.target.value)} className={inputClass} data-testid="session-blocked">
              <option value="">either</option>
              <option value="true">yes</option>
              <option value="false">no</option>
            </select>
          </FilterField>
          <FilterField label="When">
            <select value={values.window} onChange={(e) => setFilter("window", e.target.value)} className={inputClass} data-testid="session-window">
              {TIME_WINDOWS.map((w) => (
                <option key={w.value} value={w.value}>
                  {w.label}
                </option>
              ))}
            </select>
          </FilterField>
          <button type="submit" className={buttonClass("secondary")} data-testid="session-search">
            Search
          </button>
        </form>
        <div className="flex items-center gap-2">
          <Link href={`/runs${apiQuery ? `?${apiQuery}` : ""}`} className={buttonClass("ghost")} data-testid="open-in-runs">
            <ExternalLink className="h-4 w-4" aria-hidden />
            Open in Runs
          </Link>
          <ExportLinks endpoint="/api/v1/runs/export" query={apiQuery} testIdPrefix="export-sessions" />
        </div>
      </div>

      <PagedResults query={query} what="sessions" filtered={active} emptyHint="Runs appear here once an agent has run." testId="sessions">
        {(runs) => (
          <DataTable variant="boxed" testId="session-list" columns={[{ label: "Started" }, { label: "Agent" }, { label: "Outcome" }, { label: "Prompt" }, { label: "Tools" }, { label: "Cost", align: "right" }]}>
                {runs.map((run) => (
                  <tr key={run.id} className="border-t border-zinc-100 hover:bg-zinc-50 dark:border-zinc-800 dark:hover:bg-zinc-800/50" data-testid="session-row">
                    <td className="whitespace-nowrap px-3 py-2 text-xs text-zinc-500">{formatTime(run.createdAt)}</td>
                    <td className="px-3 py-2">{run.agentName}</td>
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
