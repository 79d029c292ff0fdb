import { CreateBridgeCredentialForm, RevokeBridgeCredentialButton } from "@/lib/features/settings/components/bridge-credentials";
import { listOwnBridgeCredentials } from "@/lib/platform/auth/bridge-credentials";
import { getDatabase, type Db } from "@/db/client";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { type Principal } from "@/lib/platform/auth/roles";
import { publicUrl } from "@/lib/platform/config/public-url";
import { SettingsRow, SettingsSection, SettingsTable, settingsTime } from "@/lib/features/settings/components/settings-section";

export const metadata = { title: "Settings: your credentials" };

/** The signed-in person's bridge credentials in this project: every member makes their own. */
async function BridgeCredentialsSection({ db, principal }: { db: Db; principal: Principal }) {
  const own = await listOwnBridgeCredentials(db, principal);
  const baseUrl = publicUrl();
  return (
    <SettingsSection
      title="Your bridge credentials"
      description={`What your coding agents (Claude Code, Codex, Gemini CLI, Copilot, Cursor) send their hook events to ${principal.projectSlug} with, as you: every call is recorded as yours, and the hooks that govern you see who you are. It reaches nothing else: not the runs of others, not the hooks, not approvals.`}
      testId="bridge-credentials-section"
      // The connect page links here for a credential to put in CI.
      id="bridge-credentials"
    >
      <SettingsTable
        items={own}
        testId="bridge-credentials-table"
        columns={[{ label: "Machine" }, { label: "Prefix" }, { label: "Created" }, { label: "Last used" }, { label: "Actions", hidden: true }]}
        empty={{ testId: "no-bridge-credentials", text: "None yet. Create one for each machine your coding agents run on." }}
        row={(c) => (
          <SettingsRow key={c.id} testId="bridge-credential-row">
            <td className="py-1.5">{c.name}</td>
            <td className="py-1.5 font-mono text-xs">{c.prefix}…</td>
            <td className="py-1.5 text-zinc-500">{settingsTime(c.createdAt)}</td>
            <td className="py-1.5 text-zinc-500">{settingsTime(c.lastUsedAt)}</td>
            <td className="py-1.5 text-right">{c.revokedAt ? <span className="text-xs text-zinc-500">revoked</span> : <RevokeBridgeCredentialButton id={c.id} name={c.name} />}</td>
          </SettingsRow>
        )}
      />
      <CreateBridgeCredentialForm baseUrl={baseUrl} />
    </SettingsSection>
  );
}

export default async function CredentialsSettingsPage() {
  const principal = await requirePagePrincipal();
  const { db } = await getDatabase();
  return (
    <div className="max-w-5xl space-y-6">
      {principal.userId ? (
        <BridgeCredentialsSection db={db} principal={principal} />
      ) : (
        <p className="text-sm text-zinc-500" data-testid="no-person">
          Bridge credentials belong to a person: sign in as yourself (an API token has none).
        </p>
      )}
    </div>
  );
}
