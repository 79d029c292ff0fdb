import { CodeExecutionStatusList } from "@/lib/features/settings/components/code-execution-status";
import { CreateScheduleForm } from "@/lib/features/schedules/components/create-schedule-form";
import { CreateTokenForm } from "@/lib/features/settings/components/create-token-form";
import { RetentionSettingsForm } from "@/lib/features/retention/components/retention-settings-form";
import { getRetentionSettings } from "@/lib/features/retention/retention-settings";
import { ActionButton } from "@/lib/features/settings/components/action-button";
import { AddMemberForm } from "@/lib/features/settings/components/add-member-form";
import { CreateAccountForm } from "@/lib/features/settings/components/create-account-form";
import { MemberRoleSelect } from "@/lib/features/settings/components/member-role-select";
import { CreateProjectForm, RenameProjectForm } from "@/lib/features/settings/components/project-forms";
import { deleteProjectAction, removeMemberAction, removeUserAction, setInstanceAdminAction } from "@/lib/features/settings/settings-actions";
import { ConfirmDeleteButton } from "@/components/ui/confirm-delete-button";
import { listAllMemberships, listMembers, listProjects } from "@/db/queries/projects";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { DeleteSecretButton } from "@/lib/features/secrets/components/delete-secret-button";
import { RevokeTokenButton } from "@/lib/features/settings/components/revoke-token-button";
import { CreateBridgeCredentialForm, RevokeBridgeCredentialButton } from "@/lib/features/settings/components/bridge-credentials";
import { listOwnBridgeCredentials } from "@/lib/platform/auth/bridge-credentials";
import { ScheduleTable } from "@/lib/features/schedules/components/schedule-table";
import { SetSecretForm } from "@/lib/features/secrets/components/set-secret-form";
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
import { publicUrl } from "@/lib/platform/config/public-url";
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

function signsInWith(u: { hasPassword: boolean; id: string }, identities: Map<string, string[]>): string {
  return [...(u.hasPassword ? ["password"] : []), ...(identities.has(u.id) ? ["single sign-on"] : [])].join(", ") || "—";
}

/** The current project's people, tokens and secrets: its admins. */
async function ProjectAdminSections({ db, principal }: { db: Db; principal: Principal }) {
  const [members, users, tokens, secrets, identities] = await Promise.all([
    listMembers(db, { projectId: principal.projectId }),
    listUsers(db),
    listApiTokens(db, { projectId: principal.projectId }),
    listSecretsWithSources(db, principal.projectId),
    listIdentityIssuers(db),
  ]);
  const passwordOf = new Map(users.map((u) => [u.id, u.hasPassword]));
  return (
    <>
      <Section
        title={`Members of ${principal.projectSlug}`}
        description="Admins manage the project (members, tokens, secrets); operators run agents and edit hooks; viewers read. Instance admins are admin in every project without being listed."
        testId="members-section"
      >
        {members.length > 0 ? (
          <DataTable variant="plain" testId="users-table" className="mb-4" columns={[{ label: "Email" }, { label: "Role" }, { label: "Signs in with" }, { label: "Member since" }, { label: "Actions", hidden: true }]}>
            {members.map((m) => (
              <tr key={m.userId} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="user-row">
                <td className="py-1.5">
                  {m.email}
                  {m.userId === principal.userId && <span className="ml-2 text-xs text-zinc-500">(you)</span>}
                  {m.disabled && <span className="ml-2 text-xs text-zinc-500">(removed)</span>}
                </td>
                <td className="py-1.5">
                  <MemberRoleSelect userId={m.userId} email={m.email} role={m.role} />
                </td>
                <td className="py-1.5 text-xs text-zinc-500" data-testid="user-sign-in">
                  {signsInWith({ id: m.userId, hasPassword: passwordOf.get(m.userId) ?? false }, identities)}
                </td>
                <td className="py-1.5 text-zinc-500">{when(m.createdAt)}</td>
                <td className="py-1.5 text-right">
                  <ActionButton
                    action={removeMemberAction}
                    fields={{ userId: m.userId }}
                    label="Remove"
                    pendingLabel="Removing…"
                    confirmMessage={`Remove ${m.email} from ${principal.projectSlug}? Their account stays; their tokens of this project stop working.`}
                    testId="remove-member"
                    danger
                  />
                </td>
              </tr>
            ))}
          </DataTable>
        ) : (
          <p className="mb-4 text-sm text-zinc-500" data-testid="no-members">
            No members yet: instance admins keep this project. Add people below.
          </p>
        )}
        <AddMemberForm project={principal.projectSlug} />
      </Section>
      <Section
        title={`Tokens of ${principal.projectSlug}`}
        description="API tokens are for scripts, acting in this project only, never above their maker's role here; bridge credentials are each person's, for their coding agents' hook events and nothing else. A token is shown once and stored hashed; revoking one takes effect on its next call."
        testId="tokens-section"
      >
        {tokens.length > 0 ? (
          <DataTable
            variant="plain"
            testId="tokens-table"
            className="mb-4"
            columns={[{ label: "Name" }, { label: "Kind" }, { label: "Owner" }, { label: "Prefix" }, { label: "Role" }, { label: "Last used" }, { label: "Actions", hidden: true }]}
          >
            {tokens.map((t) => (
              <tr key={t.id} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="token-row">
                <td className="py-1.5">{t.name}</td>
                <td className="py-1.5 text-xs">{t.kind === "bridge" ? "bridge credential" : "API token"}</td>
                <td className="py-1.5 text-xs text-zinc-500">{t.ownerEmail ?? "—"}</td>
                <td className="py-1.5 font-mono text-xs">{t.prefix}…</td>
                <td className="py-1.5">{t.kind === "bridge" ? <span className="text-xs text-zinc-500">hook events only</span> : t.role}</td>
                <td className="py-1.5 text-zinc-500">{when(t.lastUsedAt)}</td>
                <td className="py-1.5 text-right">{t.revokedAt ? <span className="text-xs text-zinc-400">revoked</span> : <RevokeTokenButton id={t.id} />}</td>
              </tr>
            ))}
          </DataTable>
        ) : (
          <p className="mb-4 text-sm text-zinc-500" data-testid="no-tokens">
            No tokens in this project yet.
          </p>
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
    </>
  );
}

/** The instance: projects, accounts, single sign-on, the server's configuration. Instance admins. */
async function InstanceAdminSections({ db, principal }: { db: Db; principal: Principal }) {
  const [projects, users, memberships, identities] = await Promise.all([listProjects(db), listUsers(db), listAllMemberships(db), listIdentityIssuers(db)]);
  const projectsOf = new Map<string, string[]>();
  const memberCount = new Map<string, number>();
  for (const m of memberships) {
    projectsOf.set(m.userId, [...(projectsOf.get(m.userId) ?? []), `${m.slug}: ${m.role}`]);
    memberCount.set(m.projectId, (memberCount.get(m.projectId) ?? 0) + 1);
  }
  const active = users.filter((u) => !u.disabled);
  return (
    <>
      <Section title="Projects" description="Each project has its own agents, hooks, runs, secrets, tokens and members. The slug is in paths (/api/v1/projects/<slug>/…) and never changes." testId="projects-section">
        <DataTable variant="plain" testId="projects-table" className="mb-4" columns={[{ label: "Slug" }, { label: "Name" }, { label: "Members" }, { label: "Actions", hidden: true }]}>
          {projects.map((p) => (
            <tr key={p.id} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="project-row">
              <td className="py-1.5 font-mono text-xs">
                {p.slug}
                {p.slug === principal.projectSlug && <span className="ml-2 font-sans text-zinc-500">(current)</span>}
              </td>
              <td className="py-1.5">
                <RenameProjectForm slug={p.slug} name={p.name} />
              </td>
              <td className="py-1.5 text-zinc-500">{memberCount.get(p.id) ?? 0}</td>
              <td className="py-1.5 text-right">
                {p.id === DEFAULT_PROJECT_ID ? (
                  <span className="text-xs text-zinc-400">default: kept</span>
                ) : (
                  <ConfirmDeleteButton
                    action={deleteProjectAction}
                    name="slug"
                    value={p.slug}
                    confirmMessage={`Delete project ${p.slug} and everything in it (agents, runs, hooks, secrets, tokens)? This cannot be undone.`}
                    testId="delete-project"
                  />
                )}
              </td>
            </tr>
          ))}
        </DataTable>
        <CreateProjectForm />
      </Section>
      <Section
        title="People"
        description="Every account of this instance. Instance admins keep projects, people, single sign-on and the server's settings, and are admin in every project. A Slack member id lets a person decide approvals with the buttons of Slack messages."
        testId="people-section"
      >
        <DataTable variant="plain" testId="people-table" className="mb-4" columns={[{ label: "Email" }, { label: "Projects" }, { label: "Instance admin" }, { label: "Signs in with" }, { label: "Slack member id" }, { label: "Actions", hidden: true }]}>
          {active.map((u) => (
            <tr key={u.id} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="person-row">
              <td className="py-1.5">
                {u.email}
                {u.id === principal.userId && <span className="ml-2 text-xs text-zinc-500">(you)</span>}
              </td>
              <td className="py-1.5 text-xs text-zinc-500" data-testid="person-projects">
                {projectsOf.get(u.id)?.join(", ") ?? "none yet"}
              </td>
              <td className="py-1.5">
                <span className="mr-2 text-xs" data-testid="person-instance-admin">
                  {u.instanceAdmin ? "yes" : "no"}
                </span>
                <ActionButton
                  action={setInstanceAdminAction}
                  fields={{ id: u.id, instanceAdmin: String(!u.instanceAdmin) }}
                  label={u.instanceAdmin ? "Unmake" : "Make"}
                  pendingLabel="Saving…"
                  confirmMessage={u.instanceAdmin ? `${u.email} will no longer be an instance admin; their sessions end.` : undefined}
                  testId="toggle-instance-admin"
                />
              </td>
              <td className="py-1.5 text-xs text-zinc-500" data-testid="person-sign-in">
                {signsInWith(u, identities)}
              </td>
              <td className="py-1.5">
                <UserSlackIdForm id={u.id} email={u.email} slackUserId={u.slackUserId} />
              </td>
              <td className="py-1.5 text-right">
                <ActionButton
                  action={removeUserAction}
                  fields={{ id: u.id }}
                  label="Remove"
                  pendingLabel="Removing…"
                  confirmMessage={`Remove ${u.email}'s account? Their sessions end and their tokens are revoked, in every project.`}
                  testId="remove-user"
                  danger
                />
              </td>
            </tr>
          ))}
        </DataTable>
        <CreateAccountForm />
      </Section>
      <Section
        title="Single sign-on"
        description="OpenID Connect providers (Okta, Keycloak, Entra ID, Google…): people sign in with the button on the sign-in page; their groups can set their role in each project (docs/security.md)."
        testId="sso-section"
      >
        <SsoSettings db={db} />
      </Section>
      <Section
        title="Server configuration"
        description="The environment as this server read it at start (docs/operations.md: Environment): the value in force and whether the operator set it. Changing one takes a restart."
        testId="operator-config-section"
      >
        <OperatorConfigTable rows={configRows()} />
      </Section>
    </>
  );
}

/** The signed-in person's bridge credentials in this project: every member makes their own. */
async function BridgeCredentialsSection({ db, principal }: { db: Db; principal: Principal }) {
  const own = await listOwnBridgeCredentials(db, principal);
  const baseUrl = publicUrl();
  return (
    <Section
      title="Your bridge credentials"
      description={`What your coding agents (Claude Code, Codex, Gemini CLI, Copilot, Cursor) send their hook events to ${principal.projectSlug} with, as you: every call is recorded as yours, and the hooks that govern you see who you are. It reaches nothing else: not the runs of others, not the hooks, not approvals.`}
      testId="bridge-credentials-section"
    >
      {own.length > 0 ? (
        <DataTable variant="plain" testId="bridge-credentials-table" className="mb-4" columns={[{ label: "Machine" }, { label: "Prefix" }, { label: "Created" }, { label: "Last used" }, { label: "Actions", hidden: true }]}>
          {own.map((c) => (
            <tr key={c.id} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="bridge-credential-row">
              <td className="py-1.5">{c.name}</td>
              <td className="py-1.5 font-mono text-xs">{c.prefix}…</td>
              <td className="py-1.5 text-zinc-500">{when(c.createdAt)}</td>
              <td className="py-1.5 text-zinc-500">{when(c.lastUsedAt)}</td>
              <td className="py-1.5 text-right">{c.revokedAt ? <span className="text-xs text-zinc-400">revoked</span> : <RevokeBridgeCredentialButton id={c.id} name={c.name} />}</td>
            </tr>
          ))}
        </DataTable>
      ) : (
        <p className="mb-4 text-sm text-zinc-500" data-testid="no-bridge-credentials">
          None yet. Create one for each machine your coding agents run on.
        </p>
      )}
      <CreateBridgeCredentialForm baseUrl={baseUrl} />
    </Section>
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
  const [schedules, agents, retention] = await Promise.all([listSchedulesForApi(db, principal.projectId), listAgents(db, { projectId: principal.projectId, limit: 500 }), getRetentionSettings(db)]);
  const agentNames = new Map(agents.map((a) => [a.id, a.name]));
  return (
    <>
      <PageHeader title="Settings" description={`Project ${principal.projectSlug}: who can do what, tokens, secrets, schedules${principal.instanceAdmin ? "; and the instance: projects, people, single sign-on" : ""}.`} />
      <div className="max-w-5xl space-y-6">
        {isAdmin ? (
          <ProjectAdminSections db={db} principal={principal} />
        ) : (
          <p className="text-sm text-zinc-500" data-testid="settings-admin-only">
            Members, tokens and secrets of {principal.projectSlug} are managed by its admins. You are {principal.role} here.
          </p>
        )}
        {principal.userId && <BridgeCredentialsSection db={db} principal={principal} />}
        {principal.instanceAdmin && <InstanceAdminSections db={db} principal={principal} />}
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
          <RetentionSettingsForm settings={retention} canEdit={principal.instanceAdmin} />
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
