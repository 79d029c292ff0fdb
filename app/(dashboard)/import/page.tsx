import { ExportMenu } from "@/lib/features/config-io/components/export-menu";
import { ImportForm } from "@/lib/features/config-io/components/import-form";
import { PageHeader } from "@/components/ui/page-header";
import { PageSection } from "@/components/ui/page-section";
import { getDatabase } from "@/db/client";
import { listAgents } from "@/db/queries/agents";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { roleAtLeast } from "@/lib/platform/auth/roles";

export const metadata = { title: "Import and export" };

export default async function ImportPage() {
  const principal = await requirePagePrincipal();
  const { db } = await getDatabase();
  const agents = (await listAgents(db, { projectId: principal.projectId, limit: 1000 })).map((a) => a.name);
  const canImport = roleAtLeast(principal.role, "operator");
  return (
    <>
      <PageHeader
        title="Import and export"
        description="Into and out of this project: bring hooks written for Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor, herdctl, Loom, Tailored AI, AgenTopology or Standard Agents into Hookplane, or write Hookplane's config out in one of those dialects."
      />
      <div className="space-y-8">
        <PageSection headingId="import-heading" title="Import">
          {canImport ? (
            <ImportForm canApply />
          ) : (
            <p className="text-sm text-zinc-500" data-testid="import-read-only">
              Importing needs the operator role; you are {principal.role}.
            </p>
          )}
        </PageSection>
        <PageSection headingId="export-heading" title="Export">
          <ExportMenu agents={agents} />
        </PageSection>
      </div>
    </>
  );
}
