import Link from "next/link";
import { AgentList } from "@/lib/features/agents/components/agent-list";
import { buttonClass } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { roleAtLeast } from "@/lib/platform/auth/roles";

export const metadata = { title: "Agents" };

export default async function AgentsPage() {
  const principal = await requirePagePrincipal();
  const canEdit = roleAtLeast(principal.role, "operator");
  return (
    <>
      <PageHeader
        title="Agents"
        description="Models with their instructions, tools and limits. Hooks steer what they do."
        actions={
          canEdit ? (
            <Link href="/agents/new" className={buttonClass()} data-testid="new-agent">
              New agent
            </Link>
          ) : undefined
        }
      />
      <AgentList canEdit={canEdit} />
    </>
  );
}
