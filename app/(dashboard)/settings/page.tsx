import { CodeExecutionStatusList } from "@/lib/features/settings/components/code-execution-status";
import { CreateScheduleForm } from "@/lib/features/schedules/components/create-schedule-form";
import { CreateTokenForm } from "@/lib/features/settings/components/create-token-form";
import { RetentionSettingsForm } from "@/lib/features/retention/components/retention-settings-form";
import { getRetentionSettings } from "@/lib/features/retention/retention-settings";
import { CreateUserForm } from "@/lib/features/settings/components/create-user-form";
import { DeleteSecretButton } from "@/lib/features/secrets/components/delete-secret-button";
import { RevokeTokenButton } from "@/lib/features/settings/components/revoke-token-button";
import { ScheduleTable } from "@/lib/features/schedules/components/schedule-table";
import { SetSecretForm } from "@/lib/features/secrets/components/set-secret-form";
import { UserRoleSelect } from "@/lib/features/settings/components/user-role-select";
import { UserSlackIdForm } from "@/lib/features/settings/components/user-slack-id-form";
import { PageHeader } from "@/components/ui/page-header";
import { getDatabase, type Db } from "@/db/client";
import { listAgents } from "@/db/queries/agents";
import { listApiTokens } from "@/db/queries/api-tokens";
import { listIdentityIssuers } from "@/db/queries/user-identities";
import { listUsers } from "@/db/queries/users";
import { SsoSettings } from "@/lib/features/sso/components/sso-settings";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { roleAtLeast, type Principal } from "@/lib/platform/auth/roles";
import { listSchedulesForApi } from "@/lib/features/schedules/schedule-service";
import { listSecretsWithSources, type SecretSource } from "@/lib/features/secrets/secret-store";
import { OperatorConfigTable } from "@/lib/features/settings/components/operator-config-table";
import { configRows, getConfig } from "@/lib/platform/config/config";
import { codeExecutionStatus } from "@/lib/platform/security/code-execution";
import { serverOutboundConfig } from "@/lib/platform/security/server-outbound";
import { DataTable } from "@/components/ui/data-table";

export const metadata = { title: "Settings" };

function Section({ title, description, children, testId }: { title: string; description: string; children: React.ReactNode; testId?: string }) {
  return (
    <section className="rounded-lg border border-zinc-200 bg-white p-5 dark:border-zinc-800 dark:bg-zinc-900" data-testid={testId}>
      <h2 className="text-sm font-semibold">{title}</h2>
      <p className="mb-4 text-sm text-zinc-500">{description}</p>
      {children}
    </section>
  );
}

const when = (d: Date | null) => (d ? d.toISOString().replace("T", " ").slice(0, 16) : "never");

/** Where a hook's secret comes from, in the words of secret-store.ts's one precedence. */
function sourceText(source: SecretSource): string {
  if (source.kind === "environment") return `set by ${source.variable}`;
  return source.shadows ? `secret store (overrides ${source.shadows})` : "secret store";
}

async function AdminSections({ db, principal }: { db: Db; principal: Principal }) {
  const [users, tokens, secrets, identities] = await Promise.all([listUsers(db), listApiTokens(db), listSecretsWithSources(db), listIdentityIssuers(db)]);
  return (
    <>
      <Section
        title="Users"
        description="Admins manage everything; operators run agents and edit hooks; viewers read. A Slack member id lets a person decide approvals with the buttons of Slack messages."
      >
        <DataTable variant="plain" testId="users-table" className="mb-4" columns={[{ label: "Email" }, { label: "Role" }, { label: "Signs in with" }, { label: "Slack member id" }, { label: "Since" }]}>
            {users.map((u) => (
              <tr key={u.id} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="user-row">
                <td className="py-1.5">
                  {u.email}
                  {u.id === principal.userId && <span className="ml-2 text-xs text-zinc-500">(you)</span>}
                </td>
                <td className="py-1.5">
                  <UserRoleSelect id={u.id} email={u.email} role={u.role} />
                </td>
                <td className="py-1.5 text-xs text-zinc-500" data-testid="user-sign-in">
                  {[...(u.hasPassword ? ["password"] : []), ...(identities.has(u.id) ? ["single sign-on"] : [])].join(", ") || "—"}
                </td>
                <td className="py-1.5">
                  <UserSlackIdForm id={u.id} email={u.email} slackUserId={u.slackUserId} />
                </td>
                <td className="py-1.5 text-zinc-500">{when(u.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
        <CreateUserForm />
      </Section>
      <Section
        title="Single sign-on"
        description="OpenID Connect providers (Okta, Keycloak, Entra ID, Google…): people sign in with the button on the sign-in page; their groups can set their role (README: Single sign-on)."
        testId="sso-section"
      >
        <SsoSettings db={db} />
      </Section>
      <Section title="API tokens" description="For scripts and the Claude Code bridge. A token is shown once and stored hashed.">
        {tokens.length > 0 && (
          <DataTable variant="plain" testId="tokens-table" className="mb-4" columns={[{ label: "Name" }, { label: "Prefix" }, { label: "Role" }, { label: "Last used" }, { label: "Actions", hidden: true }]}>
              {tokens.map((t) => (
                <tr key={t.id} className="border-t border-zinc-100 dark:border-zinc-800">
                  <td className="py-1.5">{t.name}</td>
                  <td className="py-1.5 font-mono text-xs">{t.prefix}…</td>
                  <td className="py-1.5">{t.role}</td>
                  <td className="py-1.5 text-zinc-500">{when(t.lastUsedAt)}</td>
                  <td className="py-1.5 text-right">{t.revokedAt ? <span className="text-xs text-zinc-400">revoked</span> : <RevokeTokenButton id={t.id} />}</td>
                </tr>
              ))}
            </DataTable>
        )}
        <CreateTokenForm />
      </Section>
      <Section
        title="Secrets"
        description="Encrypted at rest (AES-256-GCM). Values are write-only: people see names and hosts; a hook may send a value only in a header, URL userinfo or notice token, and only to the secret's hosts."
        testId="secrets-section"
      >
        {secrets.length > 0 ? (
          <table className="mb-4 w-full text-left text-sm" data-testid="secrets-table">
            <thead className="text-xs text-zinc-500">
              <tr>
                <th className="py-1 font-medium">Name</th>
                <th className="py-1 font-medium">Value</th>
                <th className="py-1 font-medium">Hosts</th>
                <th className="py-1 font-medium">Source</th>
                <th className="py-1 font-medium">Updated</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {secrets.map((s) => (
                <tr key={s.name} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="secret-row">
                  <td className="py-1.5 font-mono text-xs" data-testid="secret-name">
                    {s.name}
                  </td>
                  <td className="py-1.5 text-zinc-400" aria-label="hidden value">
                    ••••••••
                  </td>
                  <td className="py-1.5 font-mono text-xs" data-testid="secret-hosts">
                    {s.hosts.length > 0 ? s.hosts.join(", ") : <span className="font-sans text-zinc-400">none: usable by command hooks only</span>}
                  </td>
                  <td className="py-1.5 text-xs text-zinc-500" data-testid="secret-source">
                    {sourceText(s.source)}
                  </td>
                  <td className="py-1.5 text-zinc-500">{s.source.kind === "store" ? when(s.updatedAt) : "—"}</td>
                  <td className="py-1.5 text-right">{s.source.kind === "store" && <DeleteSecretButton name={s.name} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="mb-4 text-sm text-zinc-500" data-testid="no-secrets">
            No secrets stored yet. Hooks can also read HOOKPLANE_SECRET_&lt;NAME&gt; from the server&apos;s environment, sent only to
            the hosts of HOOKPLANE_SECRET_&lt;NAME&gt;_HOSTS.
          </p>
        )}
        <SetSecretForm />
      </Section>
      <Section
        title="Server configuration"
        description="The environment as this server read it at start (README: Environment): the value in force and whether the operator set it. Changing one takes a restart."
        testId="operator-config-section"
      >
        <OperatorConfigTable rows={configRows()} />
      </Section>
    </>
  );
}

export default async function SettingsPage() {
  const principal = await requirePagePrincipal();
  // The same reading the runtime, the tool registry and the code hook loader use.
  const codeExecution = codeExecutionStatus();
  const outbound = serverOutboundConfig();
  const allowListSet = getConfig().setVariables.has("HOOKPLANE_ALLOW_PRIVATE_HOSTS");
  const isAdmin = principal.role === "admin";
  const canEditSchedules = roleAtLeast(principal.role, "operator");
  const { db } = await getDatabase();
  const [schedules, agents, retention] = await Promise.all([listSchedulesForApi(db), listAgents(db, { limit: 500 }), getRetentionSettings(db)]);
  const agentNames = new Map(agents.map((a) => [a.id, a.name]));
  return (
    <>
      <PageHeader title="Settings" description="Who can do what, secrets, schedules, and the operator's switches." />
      <div className="max-w-5xl space-y-6">
        {isAdmin ? (
          <AdminSections db={db} principal={principal} />
        ) : (
          <p className="text-sm text-zinc-500" data-testid="settings-admin-only">
            Users, tokens and secrets are managed by admins. You are signed in as {principal.role}.
          </p>
        )}
        <Section
          title="Schedules"
          description={canEditSchedules ? "Runs started on a cron (UTC) or every N milliseconds." : "Runs started on a cron or an interval. Read only for viewers."}
          testId="schedules-section"
        >
          <ScheduleTable schedules={schedules} agentNames={agentNames} canEdit={canEditSchedules} />
          {canEditSchedules && (
            <div className="mt-4 border-t border-zinc-100 pt-4 dark:border-zinc-800">
              <CreateScheduleForm agents={agents.map((a) => a.name)} />
            </div>
          )}
        </Section>
        <Section
          title="Retention"
          description="How many whole UTC days records are kept before the hourly retention pass deletes them; empty or 0 keeps forever (the default). Each deletion is in the audit log."
          testId="retention-section"
        >
          <RetentionSettingsForm settings={retention} canEdit={isAdmin} />
        </Section>
        <Section
          title="Running code on the server"
          description="One switch, set by the server's operator in the environment and read only here; configuring what runs code takes an admin."
          testId="code-execution-section"
        >
          <CodeExecutionStatusList status={codeExecution} />
        </Section>
        <Section title="Outbound requests" description="Set by the operator in the environment; read only here.">
          <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm">
            <dt className="font-mono text-xs">HOOKPLANE_ALLOW_PRIVATE_HOSTS</dt>
            <dd data-testid="outbound-allow-list">
              {outbound.policy.allowPrivateHosts.length > 0
                ? `webhooks, notices and http_request may reach private or loopback addresses of: ${outbound.policy.allowPrivateHosts.join(", ")}`
                : "empty: webhooks, notices and http_request reach public addresses only"}
              {outbound.webhookOnlyHosts.length > 0 && ` (webhooks only to: ${outbound.webhookOnlyHosts.join(", ")})`}{" "}
              <span className="text-xs text-zinc-500">({allowListSet ? "set by HOOKPLANE_ALLOW_PRIVATE_HOSTS" : "not set"})</span>
            </dd>
          </dl>
        </Section>
      </div>
    </>
  );
}
