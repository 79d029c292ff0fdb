import { Suspense } from "react";
import { AuditTabs, auditTabOf } from "@/lib/features/audit/components/audit-tabs";
import { ConfigChangeLog } from "@/lib/features/audit/components/config-change-log";
import { IntegrityPanel } from "@/lib/features/audit/components/integrity-panel";
import { LedgerSearch } from "@/lib/features/audit/components/ledger-search";
import { SessionSearch } from "@/lib/features/audit/components/session-search";
import { PageHeader } from "@/components/ui/page-header";
import { getDatabase } from "@/db/client";
import { listAgents } from "@/db/queries/agents";
import { listHooks } from "@/db/queries/hooks";
import { listMembers } from "@/db/queries/projects";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";

export const metadata = { title: "Audit" };

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const principal = await requirePagePrincipal();
  // The integrity check reads both chains whole, every project's rows: an instance admin's.
  const tab = auditTabOf((await searchParams).tab, principal.instanceAdmin);
  const { db } = await getDatabase();
  const agents = (await listAgents(db, { projectId: principal.projectId, limit: 500 })).map((a) => a.name);
  const people = tab === "ledger" || tab === "sessions" ? (await listMembers(db, { projectId: principal.projectId })).map((m) => m.email) : [];
  const hookKeys = tab === "ledger" ? [...new Set((await listHooks(db, { projectId: principal.projectId })).map((h) => h.key))].sort() : [];
  return (
    <>
      <PageHeader
        title="Audit"
        description="Search past sessions and the hook ledger, export what you find, and review every configuration change. Filters live in the URL."
      />
      <AuditTabs current={tab} isAdmin={principal.instanceAdmin} />
      <Suspense>
        {tab === "sessions" && <SessionSearch agents={agents} people={people} />}
        {tab === "ledger" && <LedgerSearch agents={agents} hookKeys={hookKeys} people={people} />}
        {tab === "changes" && <ConfigChangeLog instanceAdmin={principal.instanceAdmin} />}
        {tab === "integrity" && principal.instanceAdmin && <IntegrityPanel />}
      </Suspense>
    </>
  );
}
