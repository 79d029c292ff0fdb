import { CodeExecutionStatusList } from "@/lib/features/settings/components/code-execution-status";
import { RetentionSettingsForm } from "@/lib/features/retention/components/retention-settings-form";
import { getRetentionSettings } from "@/lib/features/retention/retention-settings";
import { getDatabase } from "@/db/client";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { OperatorConfigTable } from "@/lib/features/settings/components/operator-config-table";
import { configRows, getConfig } from "@/lib/platform/config/config";
import { codeExecutionStatus } from "@/lib/platform/security/code-execution";
import { serverOutboundConfig } from "@/lib/platform/security/server-outbound";
import { SettingsSection } from "@/lib/features/settings/components/settings-section";

export const metadata = { title: "Settings: server" };

export default async function ServerSettingsPage() {
  const principal = await requirePagePrincipal();
  // The same reading the runtime, the tool registry and the code hook loader use.
  const codeExecution = codeExecutionStatus();
  const outbound = serverOutboundConfig();
  const allowListSet = getConfig().setVariables.has("HOOKPLANE_ALLOW_PRIVATE_HOSTS");
  const { db } = await getDatabase();
  const retention = await getRetentionSettings(db);
  return (
    <div className="max-w-5xl space-y-6">
        <SettingsSection
          title="Retention"
          description="How many whole UTC days records are kept before the hourly retention pass deletes them; empty or 0 keeps forever (the default). Each deletion is in the audit log."
          testId="retention-section"
        >
          <RetentionSettingsForm settings={retention} canEdit={principal.instanceAdmin} />
        </SettingsSection>
        <SettingsSection
          title="Running code on the server"
          description="One switch, set by the server's operator in the environment and read only here; configuring what runs code takes an admin."
          testId="code-execution-section"
        >
          <CodeExecutionStatusList status={codeExecution} />
        </SettingsSection>
        <SettingsSection title="Outbound requests" description="Set by the operator in the environment; read only here.">
          <dl className="grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-[auto_minmax(0,1fr)] [&>dd]:min-w-0 [&>dd]:break-words [&>dt]:break-all">
            <dt className="font-mono text-xs">HOOKPLANE_ALLOW_PRIVATE_HOSTS</dt>
            <dd data-testid="outbound-allow-list">
              {outbound.policy.allowPrivateHosts.length > 0
                ? `webhooks, notices and http_request may reach private or loopback addresses of: ${outbound.policy.allowPrivateHosts.join(", ")}`
                : "empty: webhooks, notices and http_request reach public addresses only"}
              {outbound.webhookOnlyHosts.length > 0 && ` (webhooks only to: ${outbound.webhookOnlyHosts.join(", ")})`}{" "}
              <span className="text-xs text-zinc-500">({allowListSet ? "set by HOOKPLANE_ALLOW_PRIVATE_HOSTS" : "not set"})</span>
            </dd>
          </dl>
        </SettingsSection>
      {principal.instanceAdmin && (
        <>
      <SettingsSection
        title="Server configuration"
        description="The environment as this server read it at start (docs/operations.md: Environment): the value in force and whether the operator set it. Changing one takes a restart."
        testId="operator-config-section"
      >
        <OperatorConfigTable rows={configRows()} />
      </SettingsSection>
        </>
      )}
    </div>
  );
}
