import { ApprovalInbox } from "@/lib/features/approvals/components/approval-inbox";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";

export const metadata = { title: "Approvals" };

export default async function ApprovalsPage() {
  const principal = await requirePagePrincipal();
  return (
    <>
      <PageHeader title="Approvals" description="Actions held by approve hooks, across every run of this project. Decisions resume the run at once." />
      <ApprovalInbox viewer={{ email: principal.kind === "user" ? principal.label : undefined, role: principal.role }} />
    </>
  );
}
