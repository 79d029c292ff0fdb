import Link from "next/link";
import { notFound } from "next/navigation";
import { z } from "zod";
import { DeleteRunButton } from "@/lib/features/runs/components/delete-run-button";
import { RunView } from "@/lib/features/runs/components/run-view";
import { PageHeader } from "@/components/ui/page-header";
import { getDatabase } from "@/db/client";
import { getRun, runToApi } from "@/db/queries/runs";
import { toJson } from "@/lib/platform/api/json";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { roleAtLeast } from "@/lib/platform/auth/roles";

export const metadata = { title: "Run" };

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const principal = await requirePagePrincipal();
  const { id } = await params;
  if (!z.uuid().safeParse(id).success) notFound();
  const { db } = await getDatabase();
  const run = await getRun(db, { projectId: principal.projectId, id });
  if (!run) notFound();
  const summary = toJson(runToApi(run));
  return (
    <>
      <PageHeader
        title={`Run of ${run.agentName}`}
        description={
          <>
            <Link href={`/agents/${run.agentId}`} className="text-indigo-600 underline underline-offset-2">
              {run.agentName}
            </Link>{" "}
            · <span className="font-mono text-xs">{run.id}</span> · “{run.prompt.slice(0, 120)}”
          </>
        }
        actions={principal.role === "admin" ? <DeleteRunButton id={run.id} finished={run.status === "finished"} /> : undefined}
      />
      <RunView
        initial={summary}
        canOperate={roleAtLeast(principal.role, "operator")}
        viewer={{ email: principal.kind === "user" ? principal.label : undefined, role: principal.role }}
      />
    </>
  );
}
