import { buttonClass } from "./button";

/** A paged list's next page (react-query's infinite query), offered while there is one. */
export function LoadMoreButton({ query, testId }: { query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown }; testId?: string }) {
  if (!query.hasNextPage) return null;
  return (
    <button type="button" className={buttonClass("secondary")} onClick={() => query.fetchNextPage()} disabled={query.isFetchingNextPage} data-testid={testId}>
      {query.isFetchingNextPage ? "Loading…" : "Load more"}
    </button>
  );
}
