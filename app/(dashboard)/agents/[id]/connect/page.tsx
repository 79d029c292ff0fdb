import Link from "next/link";
import { notFound } from "next/navigation";
import { buttonClass } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { getDatabase } from "@/db/client";
import { getAgent } from "@/db/queries/agents";
import { listHooksForScopes } from "@/db/queries/hooks";
import { CodingAgentTabs } from "@/lib/features/bridge/components/coding-agent-tabs";
import { ConnectSteps } from "@/lib/features/bridge/components/connect-steps";
import { CODING_AGENT_GUIDES, codingAgentOf } from "@/lib/features/bridge/connect-instructions";
import { isAgentRef } from "@/lib/core/agent/agent-spec";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { publicUrl } from "@/lib/platform/config/public-url";

export const metadata = { title: "Connect a coding agent" };

/** One place to connect a coding agent to an agent, for the signed-in person: `?agent=` picks which. */
export default async function ConnectAgentPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const principal = await requirePagePrincipal();
  const [{ id }, query] = await Promise.all([params, searchParams]);
  // Next hands the segment decoded; what is no agent's id or name names none.
  if (!isAgentRef(id)) notFound();
  const { db } = await getDatabase();
  // Another project's agent is not found here, as one that does not exist.
  const agent = await getAgent(db, { projectId: principal.projectId, ref: id });
  if (!agent) notFound();
  const codingAgent = codingAgentOf(query.agent);
  // The hooks the export writes for this agent: the project's own (not the instance-wide ones), enabled.
  const hooks = await listHooksForScopes(db, { projectId: principal.projectId, scopes: ["global", `agent:${agent.id}`] });
  const hookCount = hooks.filter((h) => h.projectId !== null && h.enabled).length;
  return (
    <>
      <PageHeader
        title={`Connect ${agent.name}`}
        description={`Send your coding agent's hook calls to ${agent.name}: its hooks decide them, and every session shows up as a run of yours.`}
        actions={
          <Link href={`/agents/${agent.id}`} className={buttonClass("secondary")} data-testid="connect-back">
            Back to {agent.name}
          </Link>
        }
      />
      <CodingAgentTabs agentId={agent.id} current={codingAgent} />
      {principal.userId ? (
        <ConnectSteps
          // A new coding agent starts its live check afresh.
          key={codingAgent}
          agent={{ id: agent.id, name: agent.name }}
          codingAgent={codingAgent}
          person={{ userId: principal.userId, label: principal.email ?? principal.label }}
          publicUrl={publicUrl()}
          hookCount={hookCount}
        />
      ) : (
        <p className="text-sm text-zinc-500" data-testid="connect-no-person">
          Connecting {CODING_AGENT_GUIDES[codingAgent].label} signs a person&apos;s machine in: sign in as yourself to see the steps.
        </p>
      )}
    </>
  );
}
