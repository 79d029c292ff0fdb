"use client";

import { clsx } from "clsx";
import Link from "next/link";
import { formatTime } from "@/components/ui/format-time";
import { EVENT_NAMES } from "@/lib/core/hooks/events";
import { ExportLinks } from "./export-links";
import { FilterBar } from "./filter-bar";
import { SelectFilter, TextFilter } from "./filter-field";
import { PagedResults, useAuditPages } from "./paged-results";
import { TIME_WINDOWS } from "./time-window";
import { useUrlFilters } from "./use-url-filters";
import { DataTable } from "@/components/ui/data-table";
import type { LedgerSearchRow } from "../schema";

const FILTERS = ["hook", "event", "verdict", "matched", "agent", "actor", "q", "runId", "window"] as const;
const VERDICTS = ["block", "allow", "skip"];
const MATCHED = [
  { value: "true", label: "matched" },
  { value: "false", label: "not matched" },
];


/** Who acted on a ledger row: the person, their role then, and which of their agents (a subagent, CI). */
function LedgerActor({ actor }: { actor: LedgerSearchRow["actor"] }) {
  if (!actor) return null;
  const through = actor.tier === "subagent" ? `subagent ${actor.subagent?.type ?? actor.subagent?.id ?? ""}`.trim() : actor.tier === "headless" ? "headless (CI)" : undefined;
  return (
    <div className="text-xs text-zinc-500" data-testid="ledger-actor">
      {actor.label}
      {actor.role && <span> ({actor.role})</span>}
      {through && <span> · {through}</span>}
    </div>
  );
}

const VERDICT_STYLES: Record<string, string> = {
  block: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
  allow: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300",
  skip: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
};

function VerdictBadge({ row }: { row: LedgerSearchRow }) {
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
export function LedgerSearch({ agents, hookKeys, people }: { agents: string[]; hookKeys: string[]; people: string[] }) {
  const filters = useUrlFilters(FILTERS);
  const { values, apiQuery, active, setFilter } = filters;
  const query = useAuditPages<LedgerSearchRow>("audit-ledger", "/api/v1/ledger", apiQuery);

  return (
    <div className="space-y-4">
      <FilterBar filters={filters} testIdPrefix="ledger" actions={<ExportLinks endpoint="/api/v1/ledger/export" query={apiQuery} testIdPrefix="export-ledger" />}>
        <TextFilter filters={filters} name="hook" label="Hook id" placeholder="e.g. no-prod" width="w-40" suggestions={hookKeys} testId="ledger-hook" />
        <SelectFilter filters={filters} name="event" label="Event" any="any" options={EVENT_NAMES} testId="ledger-event" />
        <SelectFilter filters={filters} name="verdict" label="Verdict" any="any" options={VERDICTS} testId="ledger-verdict-filter" />
        <SelectFilter filters={filters} name="matched" label="Matched" any="either" options={MATCHED} testId="ledger-matched" />
        <SelectFilter filters={filters} name="agent" label="Agent" any="all" options={agents} testId="ledger-agent" />
        <TextFilter filters={filters} name="actor" label="Person" placeholder="email" width="w-48" suggestions={people} testId="ledger-actor-filter" />
        <SelectFilter filters={filters} name="window" label="When" options={TIME_WINDOWS} testId="ledger-window" />
        <TextFilter filters={filters} name="q" label="Text" placeholder="in reasons and output" width="w-44" testId="ledger-q" />
      </FilterBar>
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
                    <td className="px-3 py-2 font-mono text-xs">
                      {row.event}
                      {row.toolName && <div className="text-zinc-500" title={row.toolCallId ?? undefined} data-testid="ledger-tool">{row.toolName}</div>}
                    </td>
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
                      <LedgerActor actor={row.actor} />
                    </td>
                  </tr>
                ))}
              </DataTable>
        )}
      </PagedResults>
    </div>
  );
}
