import Link from "next/link";
import { notFound } from "next/navigation";
import { AgentForm } from "@/lib/features/agents/components/agent-form";
import { AgentHooks } from "@/lib/features/agents/components/agent-hooks";
import { AgentTabs, agentTabOf } from "@/lib/features/agents/components/agent-tabs";
import { DeleteAgentButton } from "@/lib/features/agents/components/delete-agent-button";
import { EffectiveChain } from "@/lib/features/agents/components/effective-chain";
import { loadEnforcementContext, withEnforcement } from "@/lib/features/hooks/hook-enforcement";
import { AgentInstalls } from "@/lib/features/config-io/components/agent-installs";
import { listAgentInstallsWithDrift } from "@/lib/features/config-io/agent-installs";
import { UnguardedSessions } from "@/lib/features/bridge/components/unguarded-sessions";
import { listUnguardedSessions } from "@/db/queries/coding-agent-sightings";
import { StartRunForm } from "@/lib/features/runs/components/start-run-form";
import { RecentRuns } from "@/lib/features/runs/components/recent-runs";
import { RefreshOnRunChange } from "@/lib/features/runs/components/refresh-on-run-change";
import { formatUsd } from "@/lib/core/hooks/event-summary";
import { formatDurationMs } from "@/lib/features/runs/components/run-text";
import { loadHookHealth } from "@/lib/features/hooks/hook-health";
import { EmptyState } from "@/components/ui/empty-state";
import { StatCard } from "@/components/ui/stat-card";
import { buttonClass } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { CopyableText } from "@/components/ui/copyable-text";
import { getDatabase } from "@/db/client";
import { agentToSpec, getAgent } from "@/db/queries/agents";
import { hookToResource, listHooks, listHooksForScopes } from "@/db/queries/hooks";
import { listRuns, runToApi } from "@/db/queries/runs";
import { getRunStats } from "@/db/queries/run-stats";
import { getKillSwitch } from "@/db/queries/settings";
import { scopesForRun } from "@/lib/features/runs/run-hooks";
import { getRetentionSettings } from "@/lib/features/retention/retention-settings";
import { isAgentRef } from "@/lib/core/agent/agent-spec";
import { toJson } from "@/lib/platform/api/json";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { roleAtLeast } from "@/lib/platform/auth/roles";

const STATS_DAYS = 7;
const RECENT_RUNS = 15;

export default async function AgentPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const principal = await requirePagePrincipal();
  const { id } = await params;
  const tab = agentTabOf(await searchParams);
  // Next hands the segment decoded; what is no agent's id or name names none.
  if (!isAgentRef(id)) notFound();
  const { db } = await getDatabase();
  // Another project's agent is not found here, as one that does not exist.
  const row = await getAgent(db, { projectId: principal.projectId, ref: id });
  if (!row) notFound();
  const agent = agentToSpec(row);
  const since = new Date(Date.now() - STATS_DAYS * 24 * 60 * 60_000);
  const [hooks, chain, killSwitch, retention, installs, stats, recent, unguarded] = await Promise.all([
    listHooks(db, { projectId: principal.projectId, own: true, scope: `agent:${agent.id}` }),
    // What its runs meet: the instance-wide hooks, then the project's.
    listHooksForScopes(db, { projectId: principal.projectId, scopes: scopesForRun({ agentId: agent.id }) }),
    getKillSwitch(db),
    getRetentionSettings(db),
    listAgentInstallsWithDrift(db, { projectId: principal.projectId, agentId: agent.id, agentName: agent.name }),
    getRunStats(db, { projectId: principal.projectId, agentId: agent.id, since }),
    listRuns(db, { projectId: principal.projectId, agentId: agent.id, limit: RECENT_RUNS }),
    listUnguardedSessions(db, { projectId: principal.projectId, agentId: agent.id, from: since, to: new Date(Date.now() + 60_000), limit: 20 }),
  ]);
  const health = await loadHookHealth(db, { projectId: principal.projectId, hooks: chain });
  const canEdit = roleAtLeast(principal.role, "operator");
  const enforcement = await loadEnforcementContext(db, principal.projectId);
  // Each hook as the hooks list has it (lib/features/hooks/schema.ts HookListItem).
  const listed = (h: (typeof hooks)[number]) => ({ ...withEnforcement(hookToResource(h), enforcement), health: health[h.id] });
  return (
    <>
      <PageHeader
        title={agent.name}
        description={
          <>
            {agent.description}
            <span className="mt-1 block text-xs">
              id <CopyableText inline text={agent.id} label={`Copy the id of ${agent.name}`} testId="agent-id" />
            </span>
          </>
        }
        actions={
          <>
            {/* Anyone who may see the agent may connect their own coding agent to it (a bridge credential is every member's). */}
            <Link href={`/agents/${agent.id}/connect`} className={buttonClass()} data-testid="connect-agent">
              Connect a coding agent
            </Link>
            {canEdit && <DeleteAgentButton id={agent.id} name={agent.name} />}
          </>
        }
      />
      {!canEdit && (
        <p className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800 dark:bg-amber-950 dark:text-amber-200" data-testid="read-only-notice">
          You are a viewer: you can read this agent but not change it.
        </p>
      )}
      <AgentTabs agentId={agent.id} current={tab} />
      <div className="grid grid-cols-1 gap-8 xl:grid-cols-[minmax(0,1fr)_22rem]">
        {tab === "runs" ? (
          <div className="space-y-6" data-testid="agent-runs-tab">
            {canEdit && <StartRunForm agentName={agent.name} />}
            <section aria-labelledby="agent-stats-title">
              <h2 id="agent-stats-title" className="mb-2 text-sm font-semibold">
                Last {STATS_DAYS} days
              </h2>
              <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6" data-testid="agent-stats">
                <StatCard label="Runs" value={stats.runs} href={`/runs?agent=${encodeURIComponent(agent.name)}`} testId="stat-runs">
                  {stats.active ? `${stats.active} not finished` : undefined}
                </StatCard>
                <StatCard label="Completed" value={stats.completed} href={`/runs?agent=${encodeURIComponent(agent.name)}&outcome=completed`} testId="stat-completed" />
                <StatCard label="Failed" value={stats.failed} tone={stats.failed ? "red" : undefined} href={`/runs?agent=${encodeURIComponent(agent.name)}&outcome=failed`} testId="stat-failed" />
                <StatCard label="Blocked by a hook" value={stats.blocked} tone={stats.blocked ? "amber" : undefined} href={`/runs?agent=${encodeURIComponent(agent.name)}&blocked=true`} testId="stat-blocked" />
                <StatCard label="Cost" value={formatUsd(stats.costUsd)} href="/costs" testId="stat-cost" />
                <StatCard label="Median duration" value={formatDurationMs(stats.medianDurationMs ?? undefined)} testId="stat-duration">
                  {stats.p95DurationMs !== null ? `p95 ${formatDurationMs(stats.p95DurationMs)}` : undefined}
                </StatCard>
              </div>
            </section>
            <section aria-labelledby="agent-recent-title">
              <div className="mb-2 flex items-center justify-between">
                <h2 id="agent-recent-title" className="text-sm font-semibold">
                  Recent runs
                </h2>
                <Link href={`/runs?agent=${encodeURIComponent(agent.name)}`} className="text-xs text-indigo-600 hover:underline dark:text-indigo-400">
                  All runs of {agent.name}
                </Link>
              </div>
              {recent.length === 0 ? (
                <EmptyState title="No runs yet">{canEdit ? "Start one above, or connect a coding agent to it." : "Its runs will appear here."}</EmptyState>
              ) : (
                <RecentRuns runs={recent.map(runToApi)} showAgent={false} testId="agent-recent-runs" />
              )}
            </section>
            <RefreshOnRunChange />
          </div>
        ) : (
          <div className="space-y-6" data-testid="agent-settings-tab">
            <AgentForm agent={agent} readOnly={!canEdit} retention={{ defaultDays: retention.runDays, mayChange: principal.role === "admin" }} />
          </div>
        )}
        <div className="space-y-8">
          <AgentHooks agentId={agent.id} canEdit={canEdit} hooks={toJson(hooks.map(listed))} />
          <EffectiveChain killSwitch={killSwitch} hooks={toJson(chain.map(listed))} />
          <UnguardedSessions sessions={unguarded} days={STATS_DAYS} />
          <AgentInstalls installs={installs} agentName={agent.name} />
        </div>
      </div>
    </>
  );
}
