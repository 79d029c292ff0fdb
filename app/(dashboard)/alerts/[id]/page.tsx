import { notFound } from "next/navigation";
import { FlashToast } from "@/components/ui/flash-toast";
import { PageHeader } from "@/components/ui/page-header";
import { PageSection } from "@/components/ui/page-section";
import { getDatabase } from "@/db/client";
import { listAgents } from "@/db/queries/agents";
import { getAlertRule } from "@/db/queries/alerts";
import { alertConfig } from "@/lib/features/alerts/alert-config";
import { ALERT_KIND_INFO, targetLabel } from "@/lib/features/alerts/alert-rules";
import { alertRuleToApi, listAlertEventsForApi } from "@/lib/features/alerts/alert-service";
import { formatAlertValue } from "@/lib/features/alerts/alert-text";
import { AlertHistory } from "@/lib/features/alerts/components/alert-history";
import { AlertRuleForm } from "@/lib/features/alerts/components/alert-rule-form";
import { conditionText, utc } from "@/lib/features/alerts/components/alert-rule-table";
import { AlertStateBadge } from "@/lib/features/alerts/components/alert-state-badge";
import { DeleteAlertRuleButton } from "@/lib/features/alerts/components/delete-alert-rule-button";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { uuidSchema } from "@/lib/core/safe-input";

export default async function AlertRulePage({ params }: { params: Promise<{ id: string }> }) {
  const principal = await requirePagePrincipal();
  const { id } = await params;
  const { db } = await getDatabase();
  const row = uuidSchema.safeParse(id).success ? await getAlertRule(db, { projectId: principal.projectId, id }) : undefined;
  if (!row) notFound();
  const rule = alertRuleToApi(row);
  const canEdit = principal.role === "admin";
  const [history, agents] = await Promise.all([listAlertEventsForApi(db, principal.projectId, rule.id, { limit: 100 }),
    canEdit ? listAgents(db, { projectId: principal.projectId, limit: 500 }) : Promise.resolve([])]);
  return (
    <>
      <FlashToast param="created" message={`Alert rule ${rule.name} created`} />
      <PageHeader
        back={{ href: "/alerts", label: "Alerts" }}
        title={rule.name}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <AlertStateBadge state={rule.enabled ? rule.state : "disabled"} />
            <span>
              {ALERT_KIND_INFO[rule.kind].label} of {rule.agent ? `agent ${rule.agent}` : "all agents"}, fires {conditionText(rule)}; cooldown {rule.cooldownMinutes} min
            </span>
            <span data-testid="alert-last-value">
              · last value {rule.lastValue === undefined ? "—" : formatAlertValue(rule.kind, rule.lastValue)} at {utc(rule.lastEvaluatedAt)}
            </span>
          </span>
        }
        actions={canEdit ? <DeleteAlertRuleButton id={rule.id} name={rule.name} /> : undefined}
      />
      <div className="max-w-6xl space-y-8">
        <PageSection headingId="history-title" title="History">
          <AlertHistory events={history.items} />
        </PageSection>
        <PageSection headingId="rule-title" title="Rule">
          {canEdit ? (
            <AlertRuleForm
              agents={agents.map((a) => ({ id: a.id, name: a.name }))}
              smtpConfigured={alertConfig().smtp !== undefined}
              initial={{
                id: rule.id,
                name: rule.name,
                kind: rule.kind,
                agentId: rule.agentId,
                windowMinutes: rule.windowMinutes,
                waitMinutes: rule.waitMinutes,
                threshold: rule.threshold,
                cooldownMinutes: rule.cooldownMinutes,
                targets: rule.targets,
                enabled: rule.enabled,
              }}
            />
          ) : (
            <div className="space-y-2 text-sm">
              <p className="text-zinc-500" data-testid="read-only-notice">
                Only admins change alert rules.
              </p>
              <p>Tells: {rule.targets.length ? rule.targets.map(targetLabel).join(", ") : "nobody (firings are recorded only)"}</p>
            </div>
          )}
        </PageSection>
      </div>
    </>
  );
}
