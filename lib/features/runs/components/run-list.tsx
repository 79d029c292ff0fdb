"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { buttonClass } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Options, inputClass, type Choice } from "@/components/ui/field";
import { LoadMoreButton } from "@/components/ui/load-more-button";
import { RunToolsCell } from "@/components/ui/run-tools-cell";
import { apiFetch } from "@/lib/platform/api/api-fetch";
import { StatusBadge } from "@/components/ui/run-status-badge";
import { formatTime } from "@/components/ui/format-time";
import type { RunResponse } from "../schema";
import { AgentWithActor } from "@/components/ui/run-actor";
import { useRunChangeRefresh } from "@/lib/platform/stream/use-run-change-refresh";
import { RunFigureCells } from "./run-figure-cells";
import { DataTable } from "@/components/ui/data-table";

const FILTERS = ["agent", "status", "outcome", "tool", "blocked", "q", "from", "to", "minCost"] as const;

export function RunList({ agents }: { agents: string[] }) {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filters = new URLSearchParams();
  for (const key of FILTERS) {
    const value = params.get(key);
    if (value) filters.set(key, value);
  }
  const filterKey = filters.toString();

  const query = useInfiniteQuery({
    queryKey: ["runs", filterKey],
    queryFn: ({ pageParam }) =>
      apiFetch<{ items: RunResponse[]; nextCursor: string | null }>(
        `/api/v1/runs?limit=50${filterKey ? `&${filterKey}` : ""}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ""}`,
      ),
    initialPageParam: "",
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchOnMount: "always",
  });

  // Live status without reload: any run change refreshes the visible page.
  useRunChangeRefresh(["runs", filterKey], 250);

  const setFilter = (key: string, value: string) => {
    // From the address bar, not the render's params: two quick changes must both survive.
    const next = new URLSearchParams(window.location.search);
    if (value) next.set(key, value);
    else next.delete(key);
    router.replace(`${pathname}?${next.toString()}`);
  };
  const filter = (key: (typeof FILTERS)[number]) => ({ value: params.get(key) ?? "", onChange: (value: string) => setFilter(key, value) });

  const runs = query.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <div className="space-y-4">
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter("q", String(new FormData(e.currentTarget).get("q") ?? ""));
        }}
        data-testid="run-filters"
      >
        <label className="text-xs">
          <span className="mb-1 block text-zinc-500">Search events</span>
          <input name="q" defaultValue={params.get("q") ?? ""} placeholder="text in prompts, outputs, hooks" className={`${inputClass} w-64`} />
        </label>
        <FilterSelect label="Agent" anyLabel="all" choices={agents} {...filter("agent")} />
        <FilterSelect label="Status" anyLabel="any" choices={["queued", "running", "waiting_approval", "finished"]} {...filter("status")} />
        <FilterSelect label="Outcome" anyLabel="any" choices={["completed", "failed", "timeout", "cancelled", "budget", "max_turns", "skipped"]} {...filter("outcome")} />
        <FilterSelect label="Blocked by a hook" anyLabel="either" choices={[{ value: "true", label: "yes" }, { value: "false", label: "no" }]} {...filter("blocked")} />
        <label className="text-xs">
          <span className="mb-1 block text-zinc-500">Tool used</span>
          <input
            defaultValue={params.get("tool") ?? ""}
            onBlur={(e) => setFilter("tool", e.target.value.trim())}
            placeholder="shell"
            className={`${inputClass} w-28 font-mono`}
            data-testid="filter-tool"
          />
        </label>
        <label className="text-xs">
          <span className="mb-1 block text-zinc-500">From</span>
          <input type="date" value={params.get("from")?.slice(0, 10) ?? ""} onChange={(e) => setFilter("from", e.target.value)} className={inputClass} />
        </label>
        <label className="text-xs">
          <span className="mb-1 block text-zinc-500">To (exclusive)</span>
          <input type="date" value={params.get("to")?.slice(0, 10) ?? ""} onChange={(e) => setFilter("to", e.target.value)} className={inputClass} />
        </label>
        <label className="text-xs">
          <span className="mb-1 block text-zinc-500">Cost at least (USD)</span>
          <input
            inputMode="decimal"
            defaultValue={params.get("minCost") ?? ""}
            onBlur={(e) => setFilter("minCost", e.target.value.trim())}
            placeholder="0.01"
            className={`${inputClass} w-24`}
          />
        </label>
        <button type="submit" className={buttonClass("secondary")}>
          Search
        </button>
        {filterKey && (
          <button type="button" className={buttonClass("ghost")} onClick={() => router.replace(pathname)}>
            Clear filters
          </button>
        )}
      </form>

      {query.isPending ? (
        <div className="h-40 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" aria-busy="true" />
      ) : query.isError ? (
        <p role="alert" className="text-sm text-red-600">
          Could not load runs: {query.error.message}
        </p>
      ) : runs.length === 0 ? (
        <EmptyState title={filterKey ? "No run matches these filters" : "No runs yet"}>
          {filterKey ? "Clear a filter to see more." : "Start one from an agent's page, or POST /api/v1/runs."}
        </EmptyState>
      ) : (
        <DataTable variant="boxed" testId="run-list" columns={[
              { label: "Status" },
              { label: "Agent" },
              { label: "Prompt" },
              { label: "Tools" },
              { label: "Source" },
              { label: "Duration", align: "right" },
              { label: "Cost", align: "right" },
              { label: "Started" },
            ]}>
            {runs.map((run) => (
              <tr key={run.id} className="border-t border-zinc-100 hover:bg-zinc-50 dark:border-zinc-800 dark:hover:bg-zinc-800/50" data-testid="run-row">
                <td className="px-3 py-2">
                  <Link href={`/runs/${run.id}`} className="block">
                    <StatusBadge status={run.status} outcome={run.outcome} />
                  </Link>
                </td>
                <td className="px-3 py-2">
                  <AgentWithActor agentName={run.agentName} actor={run.actor} />
                </td>
                <td className="max-w-xs truncate px-3 py-2">
                  <Link href={`/runs/${run.id}`} className="hover:underline">
                    {run.prompt}
                  </Link>
                </td>
                <RunToolsCell run={run} />
                <RunFigureCells run={run} />
                <td className="px-3 py-2 text-xs text-zinc-500">{formatTime(run.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
      )}
      <LoadMoreButton query={query} />
    </div>
  );
}

/** One filter of the list: a choice of `choices`, or none (`anyLabel`). */
function FilterSelect({ label, anyLabel, choices, value, onChange }: { label: string; anyLabel: string; choices: readonly Choice[]; value: string; onChange: (value: string) => void }) {
  return (
    <label className="text-xs">
      <span className="mb-1 block text-zinc-500">{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)} className={inputClass}>
        <option value="">{anyLabel}</option>
        <Options choices={choices} />
      </select>
    </label>
  );
}
