import { notFound } from "next/navigation";
import { Suspense } from "react";
import { DeleteHookButton } from "@/lib/features/hooks/components/delete-hook-button";
import { HookBadges, HookHealthPanel, enforcementMark } from "@/lib/features/hooks/components/hook-badges";
import { loadHookHealth } from "@/lib/features/hooks/hook-health";
import { loadEnforcementContext, withEnforcement } from "@/lib/features/hooks/hook-enforcement";
import { HookEditor } from "@/lib/features/hooks/components/hook-editor";
import { HookVersionHistory } from "@/lib/features/hooks/components/hook-version-history";
import { HookShadowRecord, HookShadowRecordLoading } from "@/lib/features/hooks/components/hook-shadow-record";
import { loadShadowRecord } from "@/lib/features/hooks/hook-shadow";
import { FlashToast } from "@/components/ui/flash-toast";
import { PageHeader } from "@/components/ui/page-header";
import { CopyableText } from "@/components/ui/copyable-text";
import { getDatabase } from "@/db/client";
import { getHookById, hookToResource, listHookVersions } from "@/db/queries/hooks";
import { getKillSwitch } from "@/db/queries/settings";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { roleAtLeast } from "@/lib/platform/auth/roles";
import { toJson } from "@/lib/platform/api/json";
import { loadScopeContext } from "@/lib/features/hooks/hook-page-data";
import { isUuid } from "@/lib/features/hooks/schema";
import { scopeLabel } from "@/lib/features/hooks/hook-scopes";
import { describeCodeAction, mayConfigureAction } from "@/lib/features/hooks/hook-service";
import { actionRunsCode } from "@/lib/core/hooks/trust";

const notice = "mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800 dark:bg-amber-950 dark:text-amber-200";

export default async function HookPage({ params }: { params: Promise<{ id: string }> }) {
  const principal = await requirePagePrincipal();
  const { id } = await params;
  const { db } = await getDatabase();
  // Another project's hook is not found; an instance-wide one is read-only but to instance admins.
  const row = isUuid(id) ? await getHookById(db, { projectId: principal.projectId, id }) : undefined;
  if (!row) notFound();
  const hook = hookToResource(row);
  // Not awaited here: the shadow record streams in under its own loading state.
  const shadowRecord = loadShadowRecord(db, { projectId: principal.projectId, hook: { key: hook.key, scope: hook.scope } });
  const [versions, context, killed, enforcementContext, health] = await Promise.all([
    listHookVersions(db, { hookId: hook.id }),
    loadScopeContext(db, principal.projectId),
    getKillSwitch(db),
    loadEnforcementContext(db, principal.projectId),
    loadHookHealth(db, { projectId: principal.projectId, hooks: [hook] }),
  ]);
  const { enforcement } = withEnforcement(hook, enforcementContext);
  const mark = enforcementMark(enforcement);
  const isOperator = roleAtLeast(principal.role, "operator");
  const trusted = mayConfigureAction(principal, hook.spec.action);
  const keeps = !hook.instance || principal.instanceAdmin;
  const canEdit = isOperator && trusted && keeps;
  const label = hook.spec.name ?? hook.key;
  return (
    <>
      <FlashToast param="created" message={`Hook ${hook.key} created`} />
      <PageHeader
        back={{ href: "/hooks", label: "Hooks" }}
        title={label}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <CopyableText inline text={hook.key} label={`Copy the hook key ${hook.key}`} testId="hook-key" />·<span>{scopeLabel(hook.scope, context.scopes)}</span>·
            <span data-testid="hook-version">version {hook.version}</span>
            <HookBadges event={hook.spec.event} actionType={hook.spec.action.type} runsCode={actionRunsCode(hook.spec.action)} enabled={hook.enabled} mode={hook.spec.mode} enforcement={enforcement} />
          </span>
        }
        actions={canEdit ? <DeleteHookButton id={hook.id} label={label} /> : undefined}
      />
      {mark && (
        <p
          role={mark.tone === "red" ? "alert" : "note"}
          className={`mb-4 rounded-md px-3 py-2 text-sm ${mark.tone === "red" ? "bg-red-50 text-red-800 dark:bg-red-950 dark:text-red-200" : "bg-sky-50 text-sky-900 dark:bg-sky-950 dark:text-sky-100"}`}
          data-testid="hook-enforcement-notice"
        >
          {mark.label.charAt(0).toUpperCase() + mark.label.slice(1)}: {mark.why}.
        </p>
      )}
      {health[hook.id] && <HookHealthPanel health={health[hook.id]} hookKey={hook.key} />}
      <Suspense fallback={<HookShadowRecordLoading />}>
        <HookShadowRecord record={shadowRecord} shadowNow={hook.spec.mode === "shadow"} />
      </Suspense>
      {killed && (
        <p className="mb-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200" role="status">
          The kill switch is on: this hook does not run until an admin turns hooks back on.
        </p>
      )}
      {!isOperator && (
        <p className={notice} data-testid="read-only-notice">
          You are a viewer: you can read this hook but not change it.
        </p>
      )}
      {hook.instance && (
        <p className={notice} data-testid="instance-hook-notice">
          An instance-wide hook: every project&apos;s runs meet it before their own hooks.
          {!principal.instanceAdmin && " Only instance admins may change it."}
        </p>
      )}
      {isOperator && keeps && !trusted && (
        <p className={notice} data-testid="read-only-notice">
          Only admins may change this hook: it runs code on the server ({describeCodeAction(hook.spec.action)}).
        </p>
      )}
      <div className="grid grid-cols-1 gap-8 xl:grid-cols-[minmax(0,1fr)_24rem]">
        <HookEditor
          hook={{ id: hook.id, version: hook.version, spec: hook.spec }}
          agents={context.agents}
          schedules={context.schedules}
          scopes={context.scopes}
          readOnly={!canEdit}
          isAdmin={principal.role === "admin"}
        />
        <HookVersionHistory
          key={`history-${hook.version}`}
          hookId={hook.id}
          currentVersion={hook.version}
          versions={toJson(versions)}
          canRestore={canEdit}
        />
      </div>
    </>
  );
}
