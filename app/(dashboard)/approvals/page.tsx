import { ApprovalInbox } from "@/components/runs/approval-inbox";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePrincipal } from "@/lib/auth/current-principal";
import { roleAtLeast } from "@/lib/auth/roles";

export const metadata = { title: "Approvals" };

export default async function ApprovalsPage() {
  const principal = await requirePagePrincipal();
  return (
    <>
      <PageHeader title="Approvals" description="Actions held by approve hooks, across every run. Decisions resume the run at once." />
      <ApprovalInbox canDecide={roleAtLeast(principal.role, "operator")} />
    </>
  );
}
