import Link from "next/link";
import { Suspense, type ReactNode } from "react";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { StatCard } from "@/components/ui/stat-card";
import { getDatabase } from "@/db/client";
import { listApprovals } from "@/db/queries/approvals";
import { listFailingHooks } from "@/db/queries/hook-health";
import { countBlocksSince, listRecentBlocks } from "@/db/queries/hook-invocations";
import { getRunStats } from "@/db/queries/run-stats";
import { listRuns, runToApi } from "@/db/queries/runs";
import { HEALTH_WINDOW_DAYS, healthWindowStart } from "@/lib/features/hooks/hook-health-view";
import { RecentRuns } from "@/lib/features/runs/components/recent-runs";
import { RefreshOnRunChange } from "@/lib/features/runs/components/refresh-on-run-change";
import { formatUsd } from "@/lib/core/hooks/event-summary";
import { LocalTime } from "@/components/ui/local-time";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";

export const metadata = { title: "Home" };

const WEEK_MS = 7 * 24 * 60 * 60_000;
const link = "text-xs text-indigo-600 hover:underline dark:text-indigo-400";

function startOfUtcDay(now = new Date()) {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** The first page after sign-in: what runs, what waits for a person, what hooks stopped or failed, what it cost. */
export default async function HomePage() {
  const principal = await requirePagePrincipal();
  const projectId = principal.projectId;
  return (
    <>
      <PageHeader title="Home" description="This project at a glance: runs, approvals waiting for a person, what hooks blocked, hooks that fail, and cost." />
      <RefreshOnRunChange delayMs={1500} />
      <div className="space-y-8">
        <Suspense fallback={<Skeleton height="h-20" label="Loading figures" />}>
          <Figures projectId={projectId} />
        </Suspense>
        {/* grid-cols-1 below xl, not the implicit column: that one is as wide as its widest unbreakable
            line, and a truncated line (a hook's last error) has the whole text's width, so Home
            scrolled sideways on a phone. */}
        <div className="grid grid-cols-1 gap-8 xl:grid-cols-2">
          <Section title="Waiting for a person" more={{ href: "/approvals", label: "All approvals" }} testId="home-approvals">
            <Suspense fallback={<Skeleton label="Loading approvals" />}>
              <WaitingApprovals projectId={projectId} />
            </Suspense>
          </Section>
          <Section title={`Failing hooks, last ${HEALTH_WINDOW_DAYS} days`} more={{ href: "/hooks", label: "All hooks" }} testId="home-failing-hooks">
            <Suspense fallback={<Skeleton label="Loading hook health" />}>
              <FailingHooks projectId={projectId} />
            </Suspense>
          </Section>
        </div>
        <Section title="Recent runs" more={{ href: "/runs", label: "All runs" }} testId="home-runs">
          <Suspense fallback={<Skeleton label="Loading runs" />}>
            <LatestRuns projectId={projectId} />
          </Suspense>
        </Section>
        <Section title="Recent blocks" more={{ href: "/audit?tab=ledger&verdict=block", label: "In the hook ledger" }} testId="home-blocks">
          <Suspense fallback={<Skeleton label="Loading blocks" />}>
            <RecentBlocks projectId={projectId} />
          </Suspense>
        </Section>
      </div>
    </>
  );
}

function Section({ title, more, testId, children }: { title: string; more: { href: string; label: string }; testId: string; children: ReactNode }) {
  const id = `${testId}-title`;
  return (
    <section aria-labelledby={id} data-testid={testId}>
      <div className="mb-2 flex items-center justify-between gap-2">
        <h2 id={id} className="text-sm font-semibold">
          {title}
        </h2>
        <Link href={more.href} className={link}>
          {more.label}
        </Link>
      </div>
      {children}
    </section>
  );
}

function Skeleton({ height = "h-24", label }: { height?: string; label: string }) {
  return <div role="status" className={`${height} animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800`} aria-busy="true" aria-label={label} />;
}

async function Figures({ projectId }: { projectId: string }) {
  const { db } = await getDatabase();
  const since = healthWindowStart();
  const [today, week, pending, failing, blocks] = await Promise.all([
    getRunStats(db, { projectId, since: startOfUtcDay() }),
    getRunStats(db, { projectId, since: new Date(Date.now() - WEEK_MS) }),
    listApprovals(db, { projectId, status: "pending", limit: 100 }),
    listFailingHooks(db, { projectId, since, limit: 100 }),
    countBlocksSince(db, { projectId, since }),
  ]);
  const capped = (n: number) => (n >= 100 ? "100+" : n);
  return (
    <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6" data-testid="home-figures">
      <StatCard label="Runs today (UTC)" value={today.runs} href="/runs" testId="home-runs-today">
        {today.active ? `${today.active} not finished` : today.failed ? `${today.failed} failed` : undefined}
      </StatCard>
      <StatCard label="Waiting approvals" value={capped(pending.length)} tone={pending.length ? "amber" : undefined} href="/approvals" testId="home-pending" />
      <StatCard label={`Blocks, ${HEALTH_WINDOW_DAYS} days`} value={blocks} href="/audit?tab=ledger&verdict=block" testId="home-block-count" />
      <StatCard label="Failing hooks" value={capped(failing.length)} tone={failing.length ? "red" : undefined} href="/hooks" testId="home-failing-count" />
      <StatCard label="Cost today (UTC)" value={formatUsd(today.costUsd)} href="/costs" testId="home-cost-today" />
      <StatCard label="Cost, 7 days" value={formatUsd(week.costUsd)} href="/costs" testId="home-cost-week">
        {week.runs} run{week.runs === 1 ? "" : "s"}
      </StatCard>
    </div>
  );
}

async function WaitingApprovals({ projectId }: { projectId: string }) {
  const { db } = await getDatabase();
  const pending = await listApprovals(db, { projectId, status: "pending", limit: 5 });
  if (pending.length === 0) return <EmptyState title="Nothing waits for a person">An approve hook that holds a tool call puts it here.</EmptyState>;
  return (
    <ul className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 bg-white dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900">
      {pending.map((a) => (
        <li key={a.id} className="flex flex-wrap items-baseline gap-x-3 gap-y-1 px-3 py-2 text-sm" data-testid="home-approval">
          <span className="font-mono text-xs text-violet-700 dark:text-violet-300">{a.toolName ?? "action"}</span>
          <Link href={`/agents/${a.agentId}`} className="hover:underline">
            {a.agentName}
          </Link>
          {a.actor && <span className="text-xs text-zinc-500 dark:text-zinc-400">for {a.actor.label}</span>}
          <span className="text-xs text-zinc-500 dark:text-zinc-400">
            asked <LocalTime value={a.requestedAt} />
          </span>
          <span className="ml-auto flex gap-3">
            <Link href={`/runs/${a.runId}`} className={link}>
              Its run
            </Link>
            <Link href="/approvals" className={link}>
              Decide
            </Link>
          </span>
        </li>
      ))}
    </ul>
  );
}

async function FailingHooks({ projectId }: { projectId: string }) {
  const { db } = await getDatabase();
  const failing = await listFailingHooks(db, { projectId, since: healthWindowStart(), limit: 5 });
  if (failing.length === 0) return <EmptyState title="No hook failed">A hook that errs or times out shows here, whatever its onFailure let through.</EmptyState>;
  return (
    <ul className="divide-y divide-zinc-200 rounded-lg border border-red-200 bg-white dark:divide-zinc-800 dark:border-red-900 dark:bg-zinc-900">
      {failing.map((f) => (
        <li key={`${f.scope}:${f.hookKey}`} className="px-3 py-2 text-sm" data-testid="home-failing-hook" data-hook-key={f.hookKey}>
          <div className="flex flex-wrap items-baseline gap-x-3">
            {f.hookId ? (
              <Link href={`/hooks/${f.hookId}`} className="font-mono text-xs font-medium hover:underline">
                {f.hookKey}
              </Link>
            ) : (
              <span className="font-mono text-xs font-medium">{f.hookKey}</span>
            )}
            <span className="text-xs font-medium text-red-700 dark:text-red-300">
              failed {f.failed} time{f.failed === 1 ? "" : "s"}
            </span>
            <span className="text-xs text-zinc-500 dark:text-zinc-400">
              last <LocalTime value={f.lastErrorAt} />
            </span>
          </div>
          {f.lastError && <p className="mt-0.5 truncate text-xs text-zinc-600 dark:text-zinc-400" title={f.lastError}>{f.lastError}</p>}
        </li>
      ))}
    </ul>
  );
}

async function LatestRuns({ projectId }: { projectId: string }) {
  const { db } = await getDatabase();
  const runs = await listRuns(db, { projectId, limit: 8 });
  if (runs.length === 0)
    return (
      <EmptyState title="No runs yet" action={<Link href="/agents" className={link}>Open an agent to start one</Link>}>
        Runs of your agents, and the sessions of coding agents connected to them, appear here.
      </EmptyState>
    );
  return <RecentRuns runs={runs.map(runToApi)} showAgent testId="home-recent-runs" />;
}

async function RecentBlocks({ projectId }: { projectId: string }) {
  const { db } = await getDatabase();
  const blocks = await listRecentBlocks(db, { projectId, since: healthWindowStart(), limit: 5 });
  if (blocks.length === 0) return <EmptyState title={`No hook blocked anything in ${HEALTH_WINDOW_DAYS} days`}>A guard that stops a tool call shows here, with its reason.</EmptyState>;
  return (
    <ul className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 bg-white dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900">
      {blocks.map((b) => (
        <li key={b.id} className="flex flex-wrap items-baseline gap-x-3 gap-y-1 px-3 py-2 text-sm" data-testid="home-block">
          <span className="font-mono text-xs text-red-700 dark:text-red-300">{b.hookKey}</span>
          <span className="text-xs text-zinc-500 dark:text-zinc-400">
            blocked {b.toolName ?? b.event}
            {b.agentName ? ` of ${b.agentName}` : ""}
          </span>
          <span className="min-w-0 flex-1 truncate">{b.reason}</span>
          <span className="text-xs text-zinc-500 dark:text-zinc-400">
            <LocalTime value={b.createdAt} />
          </span>
          {b.runId && (
            <Link href={`/runs/${b.runId}`} className={link}>
              Its run
            </Link>
          )}
        </li>
      ))}
    </ul>
  );
}
