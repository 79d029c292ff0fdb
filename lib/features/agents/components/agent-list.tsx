"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { buttonClass } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { apiFetch } from "@/lib/platform/api/api-fetch";
import type { AgentResponse } from "../schema";


export function AgentList({ canEdit }: { canEdit: boolean }) {
  const query = useInfiniteQuery({
    queryKey: ["agents"],
    queryFn: ({ pageParam }) =>
      apiFetch<{ items: AgentResponse[]; nextCursor: string | null }>(
        `/api/v1/agents?limit=25${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ""}`,
      ),
    initialPageParam: "",
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    // Server actions change agents outside this cache; always revalidate when the list is shown.
    refetchOnMount: "always",
  });

  if (query.isPending) {
    return (
      <div className="space-y-2" aria-busy="true" data-testid="agents-loading">
        {[0, 1, 2].map((i) => (
          <div key={i} className="h-16 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" />
        ))}
      </div>
    );
  }
  if (query.isError) {
    return (
      <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200">
        Could not load agents: {query.error.message}{" "}
        <button type="button" className="underline" onClick={() => query.refetch()}>
          Retry
        </button>
      </div>
    );
  }
  const agents = query.data.pages.flatMap((p) => p.items);
  if (agents.length === 0) {
    return (
      <EmptyState
        title="No agents yet"
        action={
          canEdit ? (
            <Link href="/agents/new" className={buttonClass()}>
              Create an agent
            </Link>
          ) : undefined
        }
      >
        An agent is a model, its instructions and the tools it may call. Hooks attach to it, and your coding agents connect to it from its page.
      </EmptyState>
    );
  }
  return (
    <div className="space-y-3">
      <ul className="divide-y divide-zinc-200 overflow-hidden rounded-lg border border-zinc-200 bg-white dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900" data-testid="agent-list">
        {agents.map((agent) => (
          <li key={agent.id}>
            <Link href={`/agents/${agent.id}`} className="block px-4 py-3 hover:bg-zinc-50 dark:hover:bg-zinc-800/60" data-testid="agent-row">
              <div className="flex items-center justify-between gap-4">
                <span className="font-medium" data-testid="agent-name">
                  {agent.name}
                </span>
                <span className="rounded bg-zinc-100 px-2 py-0.5 font-mono text-xs text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">{agent.model}</span>
              </div>
              {agent.description && <p className="mt-0.5 line-clamp-1 text-sm text-zinc-500">{agent.description}</p>}
              <p className="mt-1 text-xs text-zinc-500">
                {agent.tools.length ? agent.tools.join(", ") : "no tools"} · max {agent.maxTurns} turns
                {agent.budgetUsd !== undefined ? ` · budget $${agent.budgetUsd}` : ""}
              </p>
            </Link>
          </li>
        ))}
      </ul>
      {query.hasNextPage && (
        <button type="button" className={buttonClass("secondary")} onClick={() => query.fetchNextPage()} disabled={query.isFetchingNextPage}>
          {query.isFetchingNextPage ? "Loading…" : "Load more"}
        </button>
      )}
    </div>
  );
}
