import { notFound } from "next/navigation";
import { AgentForm } from "@/lib/features/agents/components/agent-form";
import { AgentHooks } from "@/lib/features/agents/components/agent-hooks";
import { DeleteAgentButton } from "@/lib/features/agents/components/delete-agent-button";
import { EffectiveChain } from "@/lib/features/agents/components/effective-chain";
import { StartRunForm } from "@/lib/features/runs/components/start-run-form";
import { PageHeader } from "@/components/ui/page-header";
import { getDatabase } from "@/db/client";
import { agentToSpec, getAgent } from "@/db/queries/agents";
import { listHooks, listHooksForScopes } from "@/db/queries/hooks";
import { getKillSwitch } from "@/db/queries/settings";
import { scopesForRun } from "@/lib/features/runs/run-hooks";
import { getRetentionSettings } from "@/lib/features/retention/retention-settings";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { roleAtLeast } from "@/lib/platform/auth/roles";

export default async function AgentPage({ params }: { params: Promise<{ id: string }> }) {
  const principal = await requirePagePrincipal();
  const { id } = await params;
  const { db } = await getDatabase();
  // Another project's agent is not found here, as one that does not exist.
  const row = await getAgent(db, { projectId: principal.projectId, ref: decodeURIComponent(id) });
  if (!row) notFound();
  const agent = agentToSpec(row);
  const [hooks, chain, killSwitch, retention] = await Promise.all([
    listHooks(db, { projectId: principal.projectId, own: true, scope: `agent:${agent.id}` }),
    // What its runs meet: the instance-wide hooks, then the project's.
    listHooksForScopes(db, { projectId: principal.projectId, scopes: scopesForRun({ agentId: agent.id }) }),
    getKillSwitch(db),
    getRetentionSettings(db),
  ]);
  const canEdit = roleAtLeast(principal.role, "operator");
  return (
    <>
      <PageHeader
        title={agent.name}
        description={agent.description}
        actions={canEdit ? <DeleteAgentButton id={agent.id} name={agent.name} /> : undefined}
      />
      {!canEdit && (
        <p className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800 dark:bg-amber-950 dark:text-amber-200" data-testid="read-only-notice">
          You are a viewer: you can read this agent but not change it.
        </p>
      )}
      <div className="grid gap-8 xl:grid-cols-[1fr_22rem]">
        <div className="space-y-6">
          {canEdit && <StartRunForm agentName={agent.name} />}
          <AgentForm agent={agent} readOnly={!canEdit} retention={{ defaultDays: retention.runDays, mayChange: principal.role === "admin" }} />
        </div>
        <div className="space-y-8">
          <AgentHooks agentId={agent.id} canEdit={canEdit} hooks={hooks.map((h) => ({ id: h.id, key: h.key, event: h.event, enabled: h.enabled, spec: h.spec }))} />
          <EffectiveChain
            killSwitch={killSwitch}
            hooks={chain.map((h) => ({ id: h.id, key: h.key, scope: h.scope, event: h.event, enabled: h.enabled, spec: h.spec }))}
          />
        </div>
      </div>
    </>
  );
}
