import Link from "next/link";
import { HookBadges, HookHealthBadge } from "@/lib/features/hooks/components/hook-badges";
import type { HookListItem } from "@/lib/features/hooks/schema";
import { actionRunsCode } from "@/lib/core/hooks/trust";
import { buttonClass } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";

/** The agent's own hooks in execution order (global hooks run before these). */
export function AgentHooks({ agentId, hooks, canEdit }: { agentId: string; hooks: HookListItem[]; canEdit: boolean }) {
  const scope = `agent:${agentId}`;
  const addHook = canEdit ? (
    <Link href={`/hooks/new?scope=${encodeURIComponent(scope)}`} className={buttonClass("secondary", "px-2 py-1 text-xs")} data-testid="add-agent-hook">
      Add hook
    </Link>
  ) : undefined;
  return (
    <section aria-labelledby="agent-hooks-title">
      <div className="mb-2 flex items-center justify-between gap-2">
        <h2 id="agent-hooks-title" className="text-sm font-semibold">
          Hooks on this agent
        </h2>
        {hooks.length > 0 && (
          <div className="flex items-center gap-3">
            <Link href={`/hooks?scope=${encodeURIComponent(scope)}`} className="text-xs text-indigo-600 hover:underline dark:text-indigo-400">
              Reorder
            </Link>
            {addHook}
          </div>
        )}
      </div>
      {hooks.length === 0 ? (
        <EmptyState title="No hooks" action={addHook}>
          Hooks on this agent will appear here, in the order they run.
        </EmptyState>
      ) : (
        <ol className="space-y-2" data-testid="agent-hooks">
          {hooks.map((hook) => {
            const { matcher, when } = hook.spec;
            return (
              <li key={hook.id}>
                <Link
                  href={`/hooks/${hook.id}`}
                  className="block rounded-lg border border-zinc-200 bg-white p-3 text-sm hover:border-indigo-300 dark:border-zinc-800 dark:bg-zinc-900 dark:hover:border-indigo-700"
                  data-testid="agent-hook"
                >
                  <span className="block font-medium">{hook.spec.name ?? hook.key}</span>
                  <span className="mt-1.5 block">
                    <HookBadges event={hook.spec.event} actionType={hook.spec.action.type} runsCode={actionRunsCode(hook.spec.action)} enabled={hook.enabled} mode={hook.spec.mode} enforcement={hook.enforcement} />
                  </span>
                  <span className="mt-1.5 block">
                    <HookHealthBadge health={hook.health} />
                  </span>
                  {(matcher || when) && (
                    <span className="mt-1 block font-mono text-xs text-zinc-500">
                      {[matcher && `matcher ${matcher}`, when && `when ${when}`].filter(Boolean).join(" · ")}
                    </span>
                  )}
                </Link>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
