/** The skeleton a section shows while its page loads. */
export function PageLoading() {
  return (
    <div role="status" className="space-y-3" aria-busy="true" aria-label="Loading">
      <div className="h-7 w-48 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
      <div className="h-24 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
      <div className="h-24 animate-pulse rounded bg-zinc-200 dark:bg-zinc-800" />
    </div>
  );
}
