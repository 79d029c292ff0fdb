import { CreateTokenForm } from "@/lib/features/settings/components/create-token-form";
import { ActionButton } from "@/lib/features/settings/components/action-button";
import { AddMemberForm } from "@/lib/features/settings/components/add-member-form";
import { MemberRoleSelect } from "@/lib/features/settings/components/member-role-select";
import { deleteServiceAccountAction, grantSelfGovernanceAction, revokeSelfGovernanceAction, removeMemberAction } from "@/lib/features/settings/settings-actions";
import { listMembers } from "@/db/queries/projects";
import { DeleteSecretButton } from "@/lib/features/secrets/components/delete-secret-button";
import { RevokeTokenButton } from "@/lib/features/settings/components/revoke-token-button";
import { SetSecretForm } from "@/lib/features/secrets/components/set-secret-form";
import { CopyableText } from "@/components/ui/copyable-text";
import { getDatabase, type Db } from "@/db/client";
import { listApiTokens } from "@/db/queries/api-tokens";
import { listServiceAccounts } from "@/db/queries/service-accounts";
import { listSelfGovernanceGrants } from "@/db/queries/self-governance";
import { CreateServiceAccountForm, IssueServiceCredentialForm } from "@/lib/features/settings/components/service-accounts";
import { listIdentityIssuers } from "@/db/queries/user-identities";
import { listUsers } from "@/db/queries/users";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { type Principal } from "@/lib/platform/auth/roles";
import { listSecretsWithSources, type SecretSource } from "@/lib/features/secrets/secret-store";
import { publicUrl } from "@/lib/platform/config/public-url";
import { MarkedName, SettingsRow, SettingsSection, SettingsTable, settingsTime, signsInWith } from "@/lib/features/settings/components/settings-section";

export const metadata = { title: "Settings: project" };

/** Where a hook's secret comes from, in the words of secret-store.ts's one precedence. */
function sourceText(source: SecretSource): string {
  if (source.kind === "environment") return `set by ${source.variable}`;
  return source.shadows ? `secret store (overrides ${source.shadows})` : "secret store";
}

/** The current project's people, tokens and secrets: its admins. */
async function ProjectAdminSections({ db, principal }: { db: Db; principal: Principal }) {
  const [members, users, tokens, secrets, identities, accounts, grantRows] = await Promise.all([
    listMembers(db, { projectId: principal.projectId }),
    listUsers(db),
    listApiTokens(db, { projectId: principal.projectId }),
    listSecretsWithSources(db, principal.projectId),
    listIdentityIssuers(db),
    listServiceAccounts(db, { projectId: principal.projectId }),
    listSelfGovernanceGrants(db, { projectId: principal.projectId }),
  ]);
  const grants = new Map(grantRows.map((g) => [g.userId, g.grantedBy]));
  const passwordOf = new Map(users.map((u) => [u.id, u.hasPassword]));
  return (
    <>
      <SettingsSection
        title={`Members of ${principal.projectSlug}`}
        description="Admins manage the project (members, tokens, secrets); operators run agents and edit hooks; viewers read. Instance admins are admin in every project without being listed. Nobody changes the rules that govern their own coding agents, or decides their own agents' approvals, unless another admin grants it here."
        testId="members-section"
      >
        <SettingsTable
          items={members}
          testId="users-table"
          columns={[{ label: "Email" }, { label: "Role" }, { label: "Signs in with" }, { label: "Rules over own agents" }, { label: "Member since" }, { label: "Actions", hidden: true }]}
          empty={{ testId: "no-members", text: "No members yet: instance admins keep this project. Add people below." }}
          row={(m) => (
            <SettingsRow key={m.userId} testId="user-row">
              <td className="py-1.5">
                <MarkedName name={m.email} marks={[m.userId === principal.userId && "you", m.disabled && "removed"]} />
              </td>
              <td className="py-1.5">
                <MemberRoleSelect userId={m.userId} email={m.email} role={m.role} />
              </td>
              <td className="py-1.5 text-xs text-zinc-500" data-testid="user-sign-in">
                {signsInWith({ id: m.userId, hasPassword: passwordOf.get(m.userId) ?? false }, identities)}
              </td>
              <td className="py-1.5 text-xs" data-testid="self-governance">
                {grants.has(m.userId) ? (
                  <span className="inline-flex items-center gap-2">
                    <span className="text-zinc-500" title={`granted by ${grants.get(m.userId)}`}>
                      may change
                    </span>
                    <ActionButton action={revokeSelfGovernanceAction} fields={{ userId: m.userId }} label="Revoke" pendingLabel="Revoking…" testId="revoke-self-governance" danger />
                  </span>
                ) : m.userId === principal.userId ? (
                  <span className="text-zinc-500">another admin grants it</span>
                ) : (
                  <ActionButton
                    action={grantSelfGovernanceAction}
                    fields={{ userId: m.userId }}
                    label="Grant"
                    pendingLabel="Granting…"
                    confirmMessage={`Let ${m.email} change the hooks and agents that govern their own coding agents, and decide their own agents' approvals, in ${principal.projectSlug}?`}
                    testId="grant-self-governance"
                  />
                )}
              </td>
              <td className="py-1.5 text-zinc-500">{settingsTime(m.createdAt)}</td>
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
            </SettingsRow>
          )}
        />
        <AddMemberForm project={principal.projectSlug} />
      </SettingsSection>
      <SettingsSection
        title={`Tokens of ${principal.projectSlug}`}
        description="API tokens are for scripts, acting in this project only, never above their maker's role here; bridge credentials are each person's, for their coding agents' hook events and nothing else. A token is shown once and stored hashed; revoking one takes effect on its next call."
        testId="tokens-section"
      >
        <SettingsTable
          items={tokens}
          testId="tokens-table"
          columns={[{ label: "Name" }, { label: "Kind" }, { label: "Owner" }, { label: "Prefix" }, { label: "Role" }, { label: "Last used" }, { label: "Actions", hidden: true }]}
          empty={{ testId: "no-tokens", text: "No tokens in this project yet." }}
          row={(t) => (
            <SettingsRow key={t.id} testId="token-row">
              <td className="py-1.5">{t.name}</td>
              <td className="py-1.5 text-xs">{t.kind === "bridge" ? "bridge credential" : "API token"}</td>
              <td className="py-1.5 text-xs text-zinc-500">
                {t.serviceAccountName ? (
                  `${t.serviceAccountName} (service account)`
                ) : (
                  (t.ownerEmail ?? (
                    <span title="Made before tokens had owners: what it did names no one, so it sends no hook events. Replace it with a bridge credential or a service account's token." data-testid="token-no-owner">
                      no one (sends no hook events)
                    </span>
                  ))
                )}
              </td>
              <td className="py-1.5 font-mono text-xs">{t.prefix}…</td>
              <td className="py-1.5">{t.kind === "bridge" ? <span className="text-xs text-zinc-500">hook events only</span> : t.role}</td>
              <td className="py-1.5 text-zinc-500">{settingsTime(t.lastUsedAt)}</td>
              <td className="py-1.5 text-right">{t.revokedAt ? <span className="text-xs text-zinc-500">revoked</span> : <RevokeTokenButton id={t.id} />}</td>
            </SettingsRow>
          )}
        />
        <CreateTokenForm />
      </SettingsSection>
      <SettingsSection
        title="Service accounts"
        description="Who acts when no person does: a coding agent in CI, a scheduled job. Each is named on every record of what its tokens did (service:<name>), hooks can hold for it alone (when: actor.service: <name>), and deleting it ends its tokens on their next call."
        testId="service-accounts-section"
      >
        <SettingsTable
          items={accounts}
          testId="service-accounts-table"
          columns={[{ label: "Name" }, { label: "What it is" }, { label: "Active tokens" }, { label: "Last used" }, { label: "Actions", hidden: true }]}
          empty={{ testId: "no-service-accounts", text: "None yet. Make one for each pipeline or job whose agents Hookplane governs." }}
          row={(a) => (
            <SettingsRow key={a.id} testId="service-account-row">
              <td className="py-1.5 font-mono text-xs">
                {a.name}
                <div className="mt-0.5 text-zinc-500">
                  {/* The id the API's /service-accounts/{id}/credentials takes. */}
                  <CopyableText inline text={a.id} label={`Copy the id of ${a.name}`} testId="service-account-id" />
                </div>
              </td>
              <td className="py-1.5 text-zinc-500">{a.description || "—"}</td>
              <td className="py-1.5">{a.activeTokens}</td>
              <td className="py-1.5 text-zinc-500">{settingsTime(a.lastUsedAt)}</td>
              <td className="py-1.5 text-right">
                <ActionButton
                  action={deleteServiceAccountAction}
                  fields={{ id: a.id }}
                  label="Delete"
                  pendingLabel="Deleting…"
                  confirmMessage={`Delete the service account ${a.name}? Its ${a.activeTokens} token(s) stop working; the record of what it did stays.`}
                  testId="delete-service-account"
                  danger
                />
              </td>
            </SettingsRow>
          )}
        />
        <CreateServiceAccountForm />
        {accounts.length > 0 && (
          <div className="mt-4 border-t border-zinc-100 pt-4 dark:border-zinc-800">
            <IssueServiceCredentialForm accounts={accounts.map((a) => ({ id: a.id, name: a.name }))} baseUrl={publicUrl()} />
          </div>
        )}
      </SettingsSection>
      <SettingsSection
        title="Secrets"
        description="Encrypted at rest (AES-256-GCM). Values are write-only: people see names and hosts; a hook may send a value only in a header, URL userinfo or notice token, and only to the secret's hosts."
        testId="secrets-section"
      >
        <SettingsTable
          items={secrets}
          testId="secrets-table"
          columns={[{ label: "Name" }, { label: "Value" }, { label: "Hosts" }, { label: "Source" }, { label: "Updated" }, { label: "Actions", hidden: true }]}
          empty={{
            testId: "no-secrets",
            text: (
              <>
                No secrets stored yet. Hooks can also read HOOKPLANE_SECRET_&lt;NAME&gt; from the server&apos;s environment, sent only to
                the hosts of HOOKPLANE_SECRET_&lt;NAME&gt;_HOSTS.
              </>
            ),
          }}
          row={(s) => (
            <SettingsRow key={s.name} testId="secret-row">
              <td className="py-1.5 font-mono text-xs" data-testid="secret-name">
                {s.name}
              </td>
              <td className="py-1.5 text-zinc-500" aria-label="hidden value">
                ••••••••
              </td>
              <td className="py-1.5 font-mono text-xs" data-testid="secret-hosts">
                {s.hosts.length > 0 ? s.hosts.join(", ") : <span className="font-sans text-zinc-500">none: usable by command hooks only</span>}
              </td>
              <td className="py-1.5 text-xs text-zinc-500" data-testid="secret-source">
                {sourceText(s.source)}
              </td>
              <td className="py-1.5 text-zinc-500">{s.source.kind === "store" ? settingsTime(s.updatedAt) : "—"}</td>
              <td className="py-1.5 text-right">{s.source.kind === "store" && <DeleteSecretButton name={s.name} />}</td>
            </SettingsRow>
          )}
        />
        <SetSecretForm />
      </SettingsSection>
    </>
  );
}

export default async function ProjectSettingsPage() {
  const principal = await requirePagePrincipal();
  const { db } = await getDatabase();
  return (
    <div className="max-w-5xl space-y-6">
      {principal.role === "admin" ? (
        <ProjectAdminSections db={db} principal={principal} />
      ) : (
        <p className="text-sm text-zinc-500" data-testid="settings-admin-only">
          Members, tokens and secrets of {principal.projectSlug} are managed by its admins. You are {principal.role} here.
        </p>
      )}
    </div>
  );
}
