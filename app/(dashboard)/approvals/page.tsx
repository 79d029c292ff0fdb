import { ApprovalInbox } from "@/lib/features/approvals/components/approval-inbox";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { roleAtLeast } from "@/lib/platform/auth/roles";

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
