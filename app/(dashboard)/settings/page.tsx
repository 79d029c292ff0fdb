import { CreateTokenForm } from "@/components/settings/create-token-form";
import { CreateUserForm } from "@/components/settings/create-user-form";
import { RevokeTokenButton } from "@/components/settings/revoke-token-button";
import { PageHeader } from "@/components/ui/page-header";
import { getDatabase } from "@/db/client";
import { listApiTokens } from "@/db/queries/api-tokens";
import { listUsers } from "@/db/queries/users";
import { requirePagePrincipal } from "@/lib/auth/current-principal";

export const metadata = { title: "Settings" };

function Section({ title, description, children }: { title: string; description: string; children: React.ReactNode }) {
  return (
    <section className="rounded-lg border border-zinc-200 bg-white p-5 dark:border-zinc-800 dark:bg-zinc-900">
      <h2 className="text-sm font-semibold">{title}</h2>
      <p className="mb-4 text-sm text-zinc-500">{description}</p>
      {children}
    </section>
  );
}

const when = (d: Date | null) => (d ? d.toISOString().replace("T", " ").slice(0, 16) : "never");

export default async function SettingsPage() {
  const principal = await requirePagePrincipal();
  const trust = {
    command: process.env.HOOKPLANE_ALLOW_COMMAND_HOOKS === "1",
    code: process.env.HOOKPLANE_ALLOW_CODE_HOOKS === "1",
  };
  if (principal.role !== "admin") {
    return (
      <>
        <PageHeader title="Settings" />
        <p className="text-sm text-zinc-500" data-testid="settings-admin-only">
          Users, tokens and secrets are managed by admins. You are signed in as {principal.role}.
        </p>
      </>
    );
  }
  const { db } = await getDatabase();
  const [users, tokens] = await Promise.all([listUsers(db), listApiTokens(db)]);
  return (
    <>
      <PageHeader title="Settings" description="Who can do what, and the operator's switches." />
      <div className="max-w-4xl space-y-6">
        <Section title="Users" description="Admins manage everything; operators run agents and edit hooks; viewers read.">
          <table className="mb-4 w-full text-left text-sm" data-testid="users-table">
            <thead className="text-xs text-zinc-500">
              <tr>
                <th className="py-1 font-medium">Email</th>
                <th className="py-1 font-medium">Role</th>
                <th className="py-1 font-medium">Since</th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr key={u.id} className="border-t border-zinc-100 dark:border-zinc-800">
                  <td className="py-1.5">{u.email}</td>
                  <td className="py-1.5">{u.role}</td>
                  <td className="py-1.5 text-zinc-500">{when(u.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <CreateUserForm />
        </Section>
        <Section title="API tokens" description="For scripts and the Claude Code bridge. A token is shown once and stored hashed.">
          {tokens.length > 0 && (
            <table className="mb-4 w-full text-left text-sm" data-testid="tokens-table">
              <thead className="text-xs text-zinc-500">
                <tr>
                  <th className="py-1 font-medium">Name</th>
                  <th className="py-1 font-medium">Prefix</th>
                  <th className="py-1 font-medium">Role</th>
                  <th className="py-1 font-medium">Last used</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {tokens.map((t) => (
                  <tr key={t.id} className="border-t border-zinc-100 dark:border-zinc-800">
                    <td className="py-1.5">{t.name}</td>
                    <td className="py-1.5 font-mono text-xs">{t.prefix}…</td>
                    <td className="py-1.5">{t.role}</td>
                    <td className="py-1.5 text-zinc-500">{when(t.lastUsedAt)}</td>
                    <td className="py-1.5 text-right">{t.revokedAt ? <span className="text-xs text-zinc-400">revoked</span> : <RevokeTokenButton id={t.id} />}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <CreateTokenForm />
        </Section>
        <Section title="Hook trust switches" description="Set by the operator in the environment; read only here.">
          <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm">
            <dt className="font-mono text-xs">HOOKPLANE_ALLOW_COMMAND_HOOKS</dt>
            <dd>{trust.command ? "on: command hooks run" : "off: command hooks fail with a clear reason"}</dd>
            <dt className="font-mono text-xs">HOOKPLANE_ALLOW_CODE_HOOKS</dt>
            <dd>{trust.code ? "on: code hooks run" : "off: code hooks fail with a clear reason"}</dd>
          </dl>
        </Section>
      </div>
    </>
  );
}
