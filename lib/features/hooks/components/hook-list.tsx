import Link from "next/link";
import { buttonClass } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { groupByScope, type ScopeOption } from "@/lib/features/hooks/hook-scopes";
import { actionRunsCode } from "@/lib/core/hooks/trust";
import type { HookListItem } from "../schema";
import { HookBadges, HookHealthBadge } from "./hook-badges";
import { HookRowControls } from "./hook-row-controls";

/**
 * Hooks grouped by scope in execution order, the instance-wide ones first (read-only unless you
 * are an instance admin); the numbers are the order within each scope.
 */
export function HookList({
  hooks,
  scopes,
  canEdit,
  isAdmin,
  instanceAdmin = false,
  filtered,
}: {
  hooks: HookListItem[];
  scopes: ScopeOption[];
  canEdit: boolean;
  isAdmin: boolean;
  instanceAdmin?: boolean;
  filtered: boolean;
}) {
  if (hooks.length === 0) {
    return filtered ? (
      <EmptyState title="No hooks match these filters">Clear the filters to see every hook.</EmptyState>
    ) : (
      <EmptyState
        title="No hooks yet"
        action={
          canEdit ? (
            <Link href="/hooks/new" className={buttonClass()}>
              Create a hook
            </Link>
          ) : undefined
        }
      >
        A hook runs on an agent event: it can block a tool call, ask a person, add context or notify someone.
      </EmptyState>
    );
  }
  const instanceHooks = hooks.filter((h) => h.instance);
  const groups = [
    ...(instanceHooks.length > 0 ? [{ scope: "global", label: "Instance-wide (every project, before its own hooks)", hooks: instanceHooks, instance: true }] : []),
    ...groupByScope(
      hooks.filter((h) => !h.instance),
      scopes,
    ).map((g) => ({ ...g, instance: false })),
  ];
  return (
    <div className="space-y-6" data-testid="hook-groups">
      {groups.map((group) => {
        const visibleIds = group.hooks.map((h) => h.id);
        const id = `${group.instance ? "instance" : "project"}-${group.scope}`;
        const editable = canEdit && (!group.instance || instanceAdmin);
        return (
          <section key={id} aria-labelledby={`scope-${id}`} data-testid="hook-group" data-scope={group.scope} data-instance={group.instance || undefined}>
            <div className="mb-2 flex items-center justify-between">
              <h2 id={`scope-${id}`} className="text-sm font-semibold" data-testid="hook-group-title">
                {group.label}
              </h2>
              {group.instance && !instanceAdmin && <span className="text-xs text-zinc-500">Kept by instance admins</span>}
              {editable && (
                <Link href={group.instance ? "/hooks/new?instance=1" : `/hooks/new?scope=${encodeURIComponent(group.scope)}`} className="text-xs text-indigo-600 hover:underline dark:text-indigo-400">
                  Add hook here
                </Link>
              )}
            </div>
            <ol className="divide-y divide-zinc-200 overflow-hidden rounded-lg border border-zinc-200 bg-white dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900">
              {group.hooks.map((hook, index) => {
                const label = hook.spec.name ?? hook.key;
                const trusted = actionRunsCode(hook.spec.action);
                return (
                  <li key={hook.id} className="flex items-center gap-4 px-4 py-3" data-testid="hook-row" data-hook-key={hook.key}>
                    <span className="w-6 shrink-0 text-right font-mono text-xs text-zinc-500" aria-label={`Position ${index + 1}`}>
                      {index + 1}.
                    </span>
                    <div className="min-w-0 flex-1">
                      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                        <Link href={`/hooks/${hook.id}`} className="font-medium hover:underline" data-testid="hook-name">
                          {label}
                        </Link>
                        {hook.spec.name && <span className="font-mono text-xs text-zinc-500">{hook.key}</span>}
                        <HookBadges event={hook.spec.event} actionType={hook.spec.action.type} runsCode={trusted} enabled={hook.enabled} mode={hook.spec.mode} enforcement={hook.enforcement} />
                        <HookHealthBadge health={hook.health} />
                      </div>
                      {(hook.spec.matcher || hook.spec.when || hook.spec.onOutcomes) && (
                        <p className="mt-1 truncate font-mono text-xs text-zinc-500" data-testid="hook-conditions">
                          {[
                            hook.spec.matcher && `matcher ${hook.spec.matcher}`,
                            hook.spec.when && `when ${hook.spec.when}`,
                            hook.spec.onOutcomes && `on ${hook.spec.onOutcomes.join("|")}`,
                          ]
                            .filter(Boolean)
                            .join(" · ")}
                        </p>
                      )}
                    </div>
                    <span className="shrink-0 text-xs text-zinc-500">v{hook.version}</span>
                    {editable && (
                      <HookRowControls
                        id={hook.id}
                        label={label}
                        enabled={hook.enabled}
                        first={index === 0}
                        last={index === group.hooks.length - 1}
                        visibleIds={visibleIds}
                        disabledReason={trusted && !isAdmin ? "Only admins may change hooks that run code on the server" : undefined}
                      />
                    )}
                  </li>
                );
              })}
            </ol>
          </section>
        );
      })}
    </div>
  );
}
