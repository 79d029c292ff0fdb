"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { clsx } from "clsx";
import Link from "next/link";
import { formatTime } from "@/components/runs/run-format";
import { buttonClass } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { apiFetch } from "@/lib/client/api-fetch";
import { EVENT_NAMES } from "@/lib/hooks/events";
import { ExportLinks } from "./export-links";
import { FilterField } from "./filter-field";
import { PagedResults, type Page } from "./paged-results";
import { TIME_WINDOWS } from "./time-window";
import { useUrlFilters } from "./use-url-filters";
import { DataTable } from "@/components/ui/data-table";

const FILTERS = ["hook", "event", "verdict", "matched", "agent", "q", "runId", "window"] as const;
const VERDICTS = ["block", "allow", "skip"];

interface LedgerRow {
  id: number;
  runId: string | null;
  agentName: string | null;
  eventSeq: number | null;
  event: string;
  hookKey: string;
  hookVersion: number | null;
  scope: string | null;
  matched: boolean;
  skipReason: string | null;
  verdict: string | null;
  reason: string | null;
  mode: string | null;
  failed: boolean;
  timedOut: boolean;
  ignored: boolean;
  durationMs: number | null;
  createdAt: string;
}

const VERDICT_STYLES: Record<string, string> = {
  block: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
  allow: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300",
  skip: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
};

function VerdictBadge({ row }: { row: LedgerRow }) {
  const label = row.matched ? (row.verdict ?? "—") : "not matched";
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <span className={clsx("rounded px-2 py-0.5 text-xs font-medium", VERDICT_STYLES[row.verdict ?? "skip"] ?? VERDICT_STYLES.skip)} data-testid="ledger-verdict">
        {label}
      </span>
      {row.mode === "shadow" && <span className="text-xs text-violet-700 dark:text-violet-300">shadow</span>}
      {row.ignored && row.mode !== "shadow" && <span className="text-xs text-zinc-500">no effect</span>}
      {row.failed && <span className="text-xs text-amber-700 dark:text-amber-300">{row.timedOut ? "timed out" : "failed"}</span>}
    </span>
  );
}

/** The hook ledger: which hook decided what, when, in which run ("every time no-prod blocked"). */
export function LedgerSearch({ agents, hookKeys }: { agents: string[]; hookKeys: string[] }) {
  const { values, apiQuery, active, setFilter, setFilters } = useUrlFilters(FILTERS);

  const query = useInfiniteQuery({
    queryKey: ["audit-ledger", apiQuery],
    queryFn: ({ pageParam }) =>
      apiFetch<Page<LedgerRow>>(`/api/v1/ledger?limit=50${apiQuery ? `&${apiQuery}` : ""}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ""}`),
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
            const form = new FormData(e.currentTarget);
            setFilters({ hook: String(form.get("hook") ?? "").trim(), q: String(form.get("q") ?? "").trim() });
          }}
          data-testid="ledger-filters"
        >
          <FilterField label="Hook id">
            <input name="hook" key={`hook-${values.hook}`} defaultValue={values.hook} list="ledger-hook-keys" placeholder="e.g. no-prod" className={`${inputClass} w-40`} data-testid="ledger-hook" />
            <datalist id="ledger-hook-keys">
              {hookKeys.map((k) => (
                <option key={k} value={k} />
              ))}
            </datalist>
          </FilterField>
          <FilterField label="Event">
            <select value={values.event} onChange={(e) => setFilter("event", e.target.value)} className={inputClass} data-testid="ledger-event">
              <option value="">any</option>
              {EVENT_NAMES.map((name) => (
                <option key={name}>{name}</option>
              ))}
            </select>
          </FilterField>
          <FilterField label="Verdict">
            <select value={values.verdict} onChange={(e) => setFilter("verdict", e.target.value)} className={inputClass} data-testid="ledger-verdict-filter">
              <option value="">any</option>
              {VERDICTS.map((v) => (
                <option key={v}>{v}</option>
              ))}
            </select>
          </FilterField>
          <FilterField label="Matched">
            <select value={values.matched} onChange={(e) => setFilter("matched", e.target.value)} className={inputClass} data-testid="ledger-matched">
              <option value="">either</option>
              <option value="true">matched</option>
              <option value="false">not matched</option>
            </select>
          </FilterField>
          <FilterField label="Agent">
            <select value={values.agent} onChange={(e) => setFilter("agent", e.target.value)} className={inputClass} data-testid="ledger-agent">
              <option value="">all</option>
              {agents.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          </FilterField>
          <FilterField label="When">
            <select value={values.window} onChange={(e) => setFilter("window", e.target.value)} className={inputClass} data-testid="ledger-window">
              {TIME_WINDOWS.map((w) => (
                <option key={w.value} value={w.value}>
                  {w.label}
                </option>
              ))}
            </select>
          </FilterField>
          <FilterField label="Text">
            <input name="q" key={`q-${values.q}`} defaultValue={values.q} placeholder="in reasons and output" className={`${inputClass} w-44`} data-testid="ledger-q" />
          </FilterField>
          <button type="submit" className={buttonClass("secondary")} data-testid="ledger-search">
            Search
          </button>
        </form>
        <ExportLinks endpoint="/api/v1/ledger/export" query={apiQuery} testIdPrefix="export-ledger" />
      </div>
      {values.runId && (
        <p className="text-xs text-zinc-500">
          Only run <span className="font-mono">{values.runId}</span>.{" "}
          <button type="button" className="text-indigo-600 hover:underline dark:text-indigo-400" onClick={() => setFilter("runId", "")}>
            Show all runs
          </button>
        </p>
      )}

      <PagedResults query={query} what="ledger rows" filtered={active} emptyHint="Every hook a run considers is recorded here." testId="ledger">
        {(rows) => (
          <DataTable variant="boxed" testId="ledger-list" columns={[{ label: "Time" }, { label: "Hook" }, { label: "Event" }, { label: "Verdict" }, { label: "Reason" }, { label: "Run" }]}>
                {rows.map((row) => (
                  <tr key={row.id} className="border-t border-zinc-100 align-top dark:border-zinc-800" data-testid="ledger-row" data-hook-key={row.hookKey} data-verdict={row.verdict ?? ""}>
                    <td className="whitespace-nowrap px-3 py-2 text-xs text-zinc-500">{formatTime(row.createdAt)}</td>
                    <td className="px-3 py-2">
                      <span className="font-mono text-xs">{row.hookKey}</span>
                      {row.hookVersion !== null && <span className="ml-1 text-xs text-zinc-500">v{row.hookVersion}</span>}
                      {row.scope && <div className="text-xs text-zinc-500">{row.scope.split(":")[0]} scope</div>}
                    </td>
                    <td className="px-3 py-2 font-mono text-xs">{row.event}</td>
                    <td className="px-3 py-2">
                      <VerdictBadge row={row} />
                    </td>
                    <td className="max-w-md px-3 py-2 text-xs">
                      <span className="line-clamp-3 break-words">{row.matched ? (row.reason ?? "—") : (row.skipReason ?? "—")}</span>
                    </td>
                    <td className="whitespace-nowrap px-3 py-2 text-xs">
                      {row.runId ? (
                        <Link href={`/runs/${row.runId}`} className="text-indigo-600 hover:underline dark:text-indigo-400" data-testid="ledger-run-link">
                          {row.agentName ?? "run"} · {row.runId.slice(0, 8)}
                          {row.eventSeq !== null && <span className="text-zinc-500"> #{row.eventSeq}</span>}
                        </Link>
                      ) : (
                        <span className="text-zinc-500">no run</span>
                      )}
                    </td>
                  </tr>
                ))}
              </DataTable>
        )}
      </PagedResults>
    </div>
  );
}
