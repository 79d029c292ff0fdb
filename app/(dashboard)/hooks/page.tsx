import Link from "next/link";
import { FlashToast } from "@/components/ui/flash-toast";
import { HookFilters } from "@/lib/features/hooks/components/hook-filters";
import { HookList } from "@/lib/features/hooks/components/hook-list";
import { loadEnforcementContext, withEnforcement } from "@/lib/features/hooks/hook-enforcement";
import { KillSwitchBanner } from "@/lib/features/hooks/components/kill-switch-banner";
import { buttonClass } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { getDatabase } from "@/db/client";
import { hookToResource, listHooks } from "@/db/queries/hooks";
import { getKillSwitchState } from "@/db/queries/settings";
import { AppError } from "@/lib/platform/api/app-error";
import { toJson } from "@/lib/platform/api/json";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { roleAtLeast } from "@/lib/platform/auth/roles";
import { loadScopeContext } from "@/lib/features/hooks/hook-page-data";
import { loadHookHealth } from "@/lib/features/hooks/hook-health";
import { resolveHookScope } from "@/lib/features/hooks/hook-scope";
import { EVENT_NAMES } from "@/lib/core/hooks/events";

export const metadata = { title: "Hooks" };

type Search = Promise<Record<string, string | string[] | undefined>>;

export default async function HooksPage({ searchParams }: { searchParams: Search }) {
  const principal = await requirePagePrincipal();
  const search = await searchParams;
  const { db } = await getDatabase();
  const canEdit = roleAtLeast(principal.role, "operator");
  const isAdmin = principal.role === "admin";

  const event = typeof search.event === "string" && (EVENT_NAMES as string[]).includes(search.event) ? search.event : undefined;
  let scope: string | undefined;
  let scopeProblem: string | undefined;
  if (typeof search.scope === "string" && search.scope) {
    try {
      scope = await resolveHookScope(db, { projectId: principal.projectId, scope: search.scope });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      scopeProblem = error.issues?.[0]?.message ?? error.message;
    }
  }

  const [rows, killSwitch, context, enforcement] = await Promise.all([
    scopeProblem ? Promise.resolve([]) : listHooks(db, { projectId: principal.projectId, scope, event }),
    getKillSwitchState(db),
    loadScopeContext(db, principal.projectId),
    loadEnforcementContext(db, principal.projectId),
  ]);
  const health = await loadHookHealth(db, { projectId: principal.projectId, hooks: rows });
  return (
    <>
      <FlashToast param="deleted" message="Hook deleted" />
      <PageHeader
        title="Hooks"
        description="What runs on each agent event, in execution order: the instance-wide hooks first, then this project's global hooks, each agent's, each schedule's."
        actions={
          canEdit ? (
            <Link href={scope ? `/hooks/new?scope=${encodeURIComponent(scope)}` : "/hooks/new"} className={buttonClass()} data-testid="new-hook">
              New hook
            </Link>
          ) : undefined
        }
      />
      <KillSwitchBanner enabled={killSwitch.enabled} canToggle={principal.instanceAdmin} />
      <HookFilters scopes={context.scopes} scope={scope} event={event} />
      {scopeProblem && (
        <p role="alert" className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800 dark:bg-amber-950 dark:text-amber-200">
          This link filters on a scope that does not exist: {scopeProblem}.
        </p>
      )}
      <HookList hooks={toJson(rows.map((row) => ({ ...withEnforcement(hookToResource(row), enforcement), health: health[row.id] })))} scopes={context.scopes} canEdit={canEdit} isAdmin={isAdmin} instanceAdmin={principal.instanceAdmin} filtered={Boolean(event || scope || scopeProblem)} />
    </>
  );
}
