import { ActionButton } from "@/lib/features/settings/components/action-button";
import { CreateAccountForm } from "@/lib/features/settings/components/create-account-form";
import { CreateProjectForm, RenameProjectForm } from "@/lib/features/settings/components/project-forms";
import { deleteProjectAction, removeUserAction, setInstanceAdminAction } from "@/lib/features/settings/settings-actions";
import { ConfirmDeleteButton } from "@/components/ui/confirm-delete-button";
import { listAllMemberships, listProjects } from "@/db/queries/projects";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { UserSlackIdForm } from "@/lib/features/settings/components/user-slack-id-form";
import { getDatabase, type Db } from "@/db/client";
import { listIdentityIssuers } from "@/db/queries/user-identities";
import { listUsers } from "@/db/queries/users";
import { SsoSettings } from "@/lib/features/sso/components/sso-settings";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { type Principal } from "@/lib/platform/auth/roles";
import { MarkedName, SettingsRow, SettingsSection, SettingsTable, signsInWith } from "@/lib/features/settings/components/settings-section";
import { notFound } from "next/navigation";

export const metadata = { title: "Settings: instance" };

/** The instance: projects, accounts, single sign-on. Instance admins. */
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
      <SettingsSection title="Projects" description="Each project has its own agents, hooks, runs, secrets, tokens and members. The slug is in paths (/api/v1/projects/<slug>/…) and never changes." testId="projects-section">
        <SettingsTable
          items={projects}
          testId="projects-table"
          columns={[{ label: "Slug" }, { label: "Name" }, { label: "Members" }, { label: "Actions", hidden: true }]}
          row={(p) => (
            <SettingsRow key={p.id} testId="project-row">
              <td className="py-1.5 font-mono text-xs">
                <MarkedName name={p.slug} marks={[p.slug === principal.projectSlug && "current"]} className="font-sans" />
              </td>
              <td className="py-1.5">
                <RenameProjectForm slug={p.slug} name={p.name} />
              </td>
              <td className="py-1.5 text-zinc-500">{memberCount.get(p.id) ?? 0}</td>
              <td className="py-1.5 text-right">
                {p.id === DEFAULT_PROJECT_ID ? (
                  <span className="text-xs text-zinc-500">default: kept</span>
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
            </SettingsRow>
          )}
        />
        <CreateProjectForm />
      </SettingsSection>
      <SettingsSection
        title="People"
        description="Every account of this instance. Instance admins keep projects, people, single sign-on and the server's settings, and are admin in every project. A Slack member id lets a person decide approvals with the buttons of Slack messages."
        testId="people-section"
      >
        <SettingsTable
          items={active}
          testId="people-table"
          columns={[{ label: "Email" }, { label: "Projects" }, { label: "Instance admin" }, { label: "Signs in with" }, { label: "Slack member id" }, { label: "Actions", hidden: true }]}
          row={(u) => (
            <SettingsRow key={u.id} testId="person-row">
              <td className="py-1.5">
                <MarkedName name={u.email} marks={[u.id === principal.userId && "you"]} />
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
            </SettingsRow>
          )}
        />
        <CreateAccountForm />
      </SettingsSection>
      <SettingsSection
        title="Single sign-on"
        description="OpenID Connect providers (Okta, Keycloak, Entra ID, Google…): people sign in with the button on the sign-in page; their groups can set their role in each project (docs/security.md)."
        testId="sso-section"
      >
        <SsoSettings db={db} />
      </SettingsSection>
    </>
  );
}

export default async function InstanceSettingsPage() {
  const principal = await requirePagePrincipal();
  // Only instance admins have this page (its tab is not shown to anyone else).
  if (!principal.instanceAdmin) notFound();
  const { db } = await getDatabase();
  return (
    <div className="max-w-5xl space-y-6">
      <InstanceAdminSections db={db} principal={principal} />
    </div>
  );
}
