import { redirect } from "next/navigation";
import { AgentForm } from "@/lib/features/agents/components/agent-form";
import { PageHeader } from "@/components/ui/page-header";
import { getDatabase } from "@/db/client";
import { getRetentionSettings } from "@/lib/features/retention/retention-settings";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { roleAtLeast } from "@/lib/platform/auth/roles";

export const metadata = { title: "New agent" };

export default async function NewAgentPage() {
  const principal = await requirePagePrincipal();
  if (!roleAtLeast(principal.role, "operator")) redirect("/agents");
  const retention = await getRetentionSettings((await getDatabase()).db);
  return (
    <>
      <PageHeader title="New agent" description="The scripted model needs no key and plays its script, one turn per model call." />
      <AgentForm readOnly={false} retention={{ defaultDays: retention.runDays, mayChange: principal.role === "admin" }} />
    </>
  );
}
