import { EmptyState } from "@/components/ui/empty-state";

interface HookSummary {
  id: string;
  key: string;
  event: string;
  enabled: boolean;
  spec: Record<string, unknown>;
}

/** The agent's own hooks in execution order (global hooks run before these). */
export function AgentHooks({ hooks }: { hooks: HookSummary[] }) {
  return (
    <section aria-labelledby="agent-hooks-title">
      <h2 id="agent-hooks-title" className="mb-2 text-sm font-semibold">
        Hooks on this agent
      </h2>
      {hooks.length === 0 ? (
        <EmptyState title="No hooks">Hooks on this agent will appear here, in the order they run.</EmptyState>
      ) : (
        <ol className="space-y-2" data-testid="agent-hooks">
          {hooks.map((hook) => {
            const action = hook.spec.action as { type?: string } | undefined;
            return (
              <li key={hook.id} className="rounded-lg border border-zinc-200 bg-white p-3 text-sm dark:border-zinc-800 dark:bg-zinc-900">
                <div className="flex items-center justify-between gap-2">
                  <span className="font-medium">{String(hook.spec.name ?? hook.key)}</span>
                  <span className="rounded bg-indigo-50 px-1.5 py-0.5 font-mono text-xs text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300">
                    {hook.event}
                  </span>
                </div>
                <p className="mt-1 font-mono text-xs text-zinc-500">
                  {action?.type}
                  {hook.spec.matcher ? ` · matcher ${String(hook.spec.matcher)}` : ""}
                  {hook.spec.when ? ` · when ${String(hook.spec.when)}` : ""}
                  {hook.enabled ? "" : " · disabled"}
                </p>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
