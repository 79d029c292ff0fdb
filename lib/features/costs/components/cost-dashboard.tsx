"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import type { ReactNode } from "react";
import { formatUsd } from "@/lib/core/hooks/event-summary";
import { useRunChangeRefresh } from "@/lib/platform/stream/use-run-change-refresh";
import { EmptyState } from "@/components/ui/empty-state";
import { apiFetch } from "@/lib/platform/api/api-fetch";
import { BudgetList } from "./budget-list";
import { CostBreakdownChart, CostByDayChart } from "./cost-charts";
import type { CostReport } from "../schema";
import { fillDays, parseWindowDays, windowStart } from "./cost-report";
import { CostWindowPicker } from "./cost-window-picker";
import { TopRunsTable } from "./top-runs-table";

function Panel({ title, children, className }: { title: string; children: ReactNode; className?: string }) {
  return (
    <section className={`rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900 ${className ?? ""}`}>
      <h2 className="mb-3 text-sm font-semibold">{title}</h2>
      {children}
    </section>
  );
}

function Figure({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="rounded-lg border border-zinc-200 bg-white px-4 py-3 dark:border-zinc-800 dark:bg-zinc-900">
      <div className="text-xs text-zinc-500">{label}</div>
      <div className="mt-1 text-xl font-semibold tabular-nums" data-testid={testId}>
        {value}
      </div>
    </div>
  );
}

const Skeleton = ({ className }: { className: string }) => <div className={`animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800 ${className}`} />;

export function CostDashboard() {
  const params = useSearchParams();
  const days = parseWindowDays(params.get("days"));
  const from = windowStart(days);
  // One person's spend (a shareable link: ?actor=<email or user id>).
  const actor = params.get("actor") ?? "";
  const queryKey = ["costs", from.toISOString(), actor];
  const query = useQuery({
    queryKey,
    queryFn: () => apiFetch<CostReport>(`/api/v1/costs?from=${encodeURIComponent(from.toISOString())}${actor ? `&actor=${encodeURIComponent(actor)}` : ""}`),
    refetchOnMount: "always",
  });

  // A finished run changes the totals.
  useRunChangeRefresh(["costs"], 1000);

  const header = (
    <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
      <CostWindowPicker days={days} />
      <span className="text-xs text-zinc-500">Days are UTC. Cost is priced per model call from the price table below.</span>
      {actor && (
        <p className="w-full text-sm" data-testid="cost-person-filter">
          Only the coding agents of <span className="font-medium">{actor}</span>.{" "}
          <Link href={`/costs?days=${days}`} className="text-indigo-600 hover:underline dark:text-indigo-400">
            Show everyone
          </Link>
        </p>
      )}
    </div>
  );

  if (query.isPending) {
    return (
      <div role="status" aria-busy="true" aria-label="Loading costs">
        {header}
        <div className="grid gap-4 sm:grid-cols-3">
          <Skeleton className="h-20" />
          <Skeleton className="h-20" />
          <Skeleton className="h-20" />
        </div>
        <Skeleton className="mt-4 h-64" />
      </div>
    );
  }
  if (query.isError) {
    return (
      <div>
        {header}
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200" data-testid="costs-error">
          Could not load costs: {query.error.message}{" "}
          <button type="button" className="underline" onClick={() => query.refetch()}>
            Try again
          </button>
        </p>
      </div>
    );
  }

  const report = query.data;
  const total = report.byDay.reduce((sum, d) => sum + d.costUsd, 0);
  const runs = report.byDay.reduce((sum, d) => sum + d.runs, 0);
  const tokens = report.byAgent.reduce((sum, a) => sum + a.inputTokens + a.outputTokens, 0);
  const byAgent = report.byAgent.map((a) => ({ name: a.agentName, costUsd: a.costUsd, runs: a.runs }));
  const byModel = report.byModel.map((m) => ({ name: m.model ?? "(unknown)", costUsd: m.costUsd, calls: m.calls }));
  const unpriced = report.byModel.filter((m) => m.unpricedCalls > 0);

  return (
    <div className="space-y-4" data-testid="cost-dashboard">
      {header}
      <div className="grid gap-4 sm:grid-cols-3">
        <Figure label={`Total, last ${days} days`} value={formatUsd(total)} testId="cost-total" />
        <Figure label="Runs" value={runs.toLocaleString("en-US")} testId="cost-runs" />
        <Figure label="Tokens (in + out)" value={tokens.toLocaleString("en-US")} testId="cost-tokens" />
      </div>
      {unpriced.length > 0 && (
        <p role="status" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200" data-testid="cost-unpriced">
          {unpriced.reduce((n, m) => n + m.unpricedCalls, 0).toLocaleString("en-US")} model calls of {unpriced.map((m) => m.model).join(", ")} were recorded with no price, so the totals count them as
          $0. Add a price for {unpriced.length === 1 ? "it" : "them"} in the price table below for the calls from now on.
        </p>
      )}
      {runs === 0 ? (
        <EmptyState title={`No runs in the last ${days} days`}>Start a run from an agent&apos;s page; its cost shows up here.</EmptyState>
      ) : (
        <>
          <Panel title="Cost by day">
            <CostByDayChart data={fillDays(report.byDay, from, days)} />
          </Panel>
          <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
            <Panel title="By agent">
              <CostBreakdownChart data={byAgent} testId="cost-by-agent-chart" />
              <table className="mt-3 w-full text-left text-xs">
                <tbody>
                  {report.byAgent.map((a) => (
                    <tr key={a.agentId} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="cost-by-agent-row" data-agent={a.agentName}>
                      <td className="py-1">{a.agentName}</td>
                      <td className="py-1 text-zinc-500">{a.runs === 1 ? "1 run" : `${a.runs} runs`}</td>
                      <td className="py-1 text-right font-mono">{formatUsd(a.costUsd)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Panel>
            <Panel title="By model">
              {byModel.length === 0 ? (
                <p className="text-sm text-zinc-500">No model calls recorded in this window.</p>
              ) : (
                <>
                  <CostBreakdownChart data={byModel} testId="cost-by-model-chart" />
                  <table className="mt-3 w-full text-left text-xs">
                    <tbody>
                      {report.byModel.map((m) => (
                        <tr key={m.model ?? "unknown"} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="cost-by-model-row">
                          <td className="py-1 font-mono">{m.model ?? "(unknown)"}</td>
                          <td className="py-1 text-zinc-500">{m.calls === 1 ? "1 call" : `${m.calls} calls`}</td>
                          <td className="py-1 text-right font-mono">
                            {formatUsd(m.costUsd)}
                            {m.unpricedCalls > 0 && (
                              <span className="ml-1 font-sans text-amber-700 dark:text-amber-300" title="Recorded with no price: these calls count as $0" data-testid="cost-model-unpriced">
                                ({m.unpricedCalls} unpriced)
                              </span>
                            )}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </>
              )}
            </Panel>
          </div>
          {report.byPerson.length > 0 && (
            <Panel title="By person (coding agents)">
              <table className="w-full text-left text-xs">
                <tbody>
                  {report.byPerson.map((p) => (
                    <tr key={p.actorKey} className="border-t border-zinc-100 first:border-t-0 dark:border-zinc-800" data-testid="cost-by-person-row" data-person={p.label}>
                      <td className="py-1">
                        <Link href={`/costs?days=${days}&actor=${encodeURIComponent(p.actorUserId ?? p.label)}`} className="text-indigo-600 hover:underline dark:text-indigo-400">
                          {p.label}
                        </Link>
                      </td>
                      <td className="py-1 text-zinc-500">{p.runs === 1 ? "1 session" : `${p.runs} sessions`}</td>
                      <td className="py-1 text-right font-mono">{formatUsd(p.costUsd)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Panel>
          )}
          <Panel title="Top runs by cost">
            <TopRunsTable runs={report.topRuns} />
          </Panel>
        </>
      )}
      <Panel title="Budgets today">
        <BudgetList budgets={report.budgets} />
      </Panel>
    </div>
  );
}
