import { redirect } from "next/navigation";
import { HookEditor } from "@/lib/features/hooks/components/hook-editor";
import { PageHeader } from "@/components/ui/page-header";
import { getDatabase } from "@/db/client";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { roleAtLeast } from "@/lib/platform/auth/roles";
import { loadScopeContext } from "@/lib/features/hooks/hook-page-data";
import { resolveHookScope } from "@/lib/features/hooks/hook-scope";
import { EVENT_NAMES } from "@/lib/core/hooks/events";

export const metadata = { title: "New hook" };

export default async function NewHookPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const principal = await requirePagePrincipal();
  if (!roleAtLeast(principal.role, "operator")) redirect("/hooks");
  const search = await searchParams;
  const { db } = await getDatabase();
  const context = await loadScopeContext(db, principal.projectId);
  // `?scope=agent:coding-agent` prefills the scope; an unknown one falls back to global.
  const scope =
    typeof search.scope === "string" ? await resolveHookScope(db, { projectId: principal.projectId, scope: search.scope }).catch(() => "global") : "global";
  // `?instance=1` (the instance-wide group's link) ticks the instance-wide box for instance admins.
  const instance = principal.instanceAdmin && search.instance === "1";
  const event = typeof search.event === "string" && (EVENT_NAMES as string[]).includes(search.event) ? search.event : undefined;
  return (
    <>
      <PageHeader title="New hook" description="A hook runs on one event of an agent's run: it can block, ask, add context or notify." />
      <HookEditor
        agents={context.agents} schedules={context.schedules} scopes={context.scopes} readOnly={false} isAdmin={principal.role === "admin"}
        instanceAdmin={principal.instanceAdmin}
        defaults={{ scope, event, instance }}
      />
    </>
  );
}
