"use client";

import { useInfiniteQuery, type InfiniteData, type UseInfiniteQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { buttonClass } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { apiFetch } from "@/lib/platform/api/api-fetch";

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** An audit list endpoint read 50 rows a page with the tab's filters (`apiQuery`), for `PagedResults`. */
export function useAuditPages<T>(queryName: string, endpoint: string, apiQuery: string) {
  return useInfiniteQuery({
    queryKey: [queryName, apiQuery],
    queryFn: ({ pageParam }) =>
      apiFetch<Page<T>>(`${endpoint}?limit=50${apiQuery ? `&${apiQuery}` : ""}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ""}`),
    initialPageParam: "",
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** The loading, error and empty states of a paged audit list, and its "Load more". */
export function PagedResults<T>({
  query,
  what,
  filtered,
  emptyHint,
  testId,
  children,
}: {
  query: UseInfiniteQueryResult<InfiniteData<Page<T>>>;
  /** Plural noun for the messages: "runs", "ledger rows". */
  what: string;
  filtered: boolean;
  emptyHint: ReactNode;
  testId: string;
  children: (items: T[]) => ReactNode;
}) {
  if (query.isPending) {
    return <div role="status" className="h-40 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" aria-busy="true" aria-label={`Loading ${what}`} data-testid={`${testId}-loading`} />;
  }
  if (query.isError) {
    return (
      <div role="alert" className="flex items-center justify-between rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200" data-testid={`${testId}-error`}>
        <span>
          Could not load {what}: {query.error.message}
        </span>
        <button type="button" className={buttonClass("secondary")} onClick={() => query.refetch()}>
          Retry
        </button>
      </div>
    );
  }
  const items = query.data.pages.flatMap((p) => p.items);
  if (items.length === 0) {
    return <EmptyState title={filtered ? `No ${what} match these filters` : `No ${what} yet`}>{filtered ? "Clear a filter or widen the time window." : emptyHint}</EmptyState>;
  }
  return (
    <div className="space-y-3">
      {children(items)}
      <div className="flex items-center gap-3 text-xs text-zinc-500">
        <span data-testid={`${testId}-count`}>
          Showing {items.length}
        </span>
        {query.hasNextPage && (
          <button
            type="button"
            className={buttonClass("secondary")}
            onClick={() => query.fetchNextPage()}
            disabled={query.isFetchingNextPage}
            data-testid={`${testId}-load-more`}
          >
            {query.isFetchingNextPage ? "Loading…" : "Load more"}
          </button>
        )}
      </div>
    </div>
  );
}
