import { Suspense } from "react";
import { RunList } from "@/lib/features/runs/components/run-list";
import { PageHeader } from "@/components/ui/page-header";
import { getDatabase } from "@/db/client";
import { listAgents } from "@/db/queries/agents";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";

export const metadata = { title: "Runs" };

export default async function RunsPage() {
  const principal = await requirePagePrincipal();
  const { db } = await getDatabase();
  const agents = (await listAgents(db, { projectId: principal.projectId, limit: 500 })).map((a) => a.name);
  return (
    <>
      <PageHeader title="Runs" description="Every run, live. Filters live in the URL, so a view can be shared." />
      <Suspense>
        <RunList agents={agents} />
      </Suspense>
    </>
  );
}
