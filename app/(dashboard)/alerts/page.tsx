import { FlashToast } from "@/components/ui/flash-toast";
import { PageHeader } from "@/components/ui/page-header";
import { PageSection } from "@/components/ui/page-section";
import { getDatabase } from "@/db/client";
import { listAgents } from "@/db/queries/agents";
import { alertConfig } from "@/lib/features/alerts/alert-config";
import { listAlertRulesForApi } from "@/lib/features/alerts/alert-service";
import { AlertRuleForm } from "@/lib/features/alerts/components/alert-rule-form";
import { AlertRuleTable } from "@/lib/features/alerts/components/alert-rule-table";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";

export const metadata = { title: "Alerts" };

export default async function AlertsPage() {
  const principal = await requirePagePrincipal();
  const { db } = await getDatabase();
  const canEdit = principal.role === "admin";
  const [rules, agents] = await Promise.all([listAlertRulesForApi(db, principal.projectId),
    canEdit ? listAgents(db, { projectId: principal.projectId, limit: 500 }) : Promise.resolve([])]);
  const config = alertConfig();
  return (
    <>
      <FlashToast param="deleted" message="Alert rule deleted" />
      <PageHeader
        title="Alerts"
        description={
          config.evaluationMs > 0
            ? `Rules on cost, failed and blocked runs, hook failures and waiting approvals, evaluated every ${Math.round(config.evaluationMs / 1000)} s by the workers. A rule tells its targets when it fires, at most once per cooldown (a reminder after it while still firing), and once when it resolves.`
            : "Rules on cost, failed and blocked runs, hook failures and waiting approvals. Evaluation is off on this server (HOOKPLANE_ALERT_EVAL_MS=0)."
        }
      />
      <div className="max-w-6xl space-y-8">
        <AlertRuleTable rules={rules} canEdit={canEdit} />
        {canEdit ? (
          <PageSection headingId="new-alert-title" title="New alert rule">
            <AlertRuleForm agents={agents.map((a) => ({ id: a.id, name: a.name }))} smtpConfigured={config.smtp !== undefined} />
          </PageSection>
        ) : (
          <p className="text-sm text-zinc-500" data-testid="read-only-notice">
            Only admins create and change alert rules (their targets name secrets and reach outside).
          </p>
        )}
      </div>
    </>
  );
}
