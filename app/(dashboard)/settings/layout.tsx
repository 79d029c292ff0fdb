import { PageHeader } from "@/components/ui/page-header";
import { SettingsTabs } from "@/lib/features/settings/components/settings-tabs";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";

/** Settings as pages (the project's people, tokens and secrets; your credentials; the instance; the server), one tab each. */
export default async function SettingsLayout({ children }: { children: React.ReactNode }) {
  const principal = await requirePagePrincipal();
  const tabs = [
    { href: "/settings", label: "Project" },
    { href: "/settings/credentials", label: "Your credentials" },
    ...(principal.instanceAdmin ? [{ href: "/settings/instance", label: "Instance" }] : []),
    { href: "/settings/server", label: "Server" },
  ];
  return (
    <>
      <PageHeader title="Settings" description={`Project ${principal.projectSlug}: who can do what, tokens and secrets; your bridge credentials${principal.instanceAdmin ? "; the instance: projects, people, single sign-on" : ""}; and how this server is set up. Schedules have their own page.`} />
      <SettingsTabs tabs={tabs} />
      {children}
    </>
  );
}
