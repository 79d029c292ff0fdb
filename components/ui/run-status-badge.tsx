/** How a run's status (or, once finished, its outcome) reads: a coloured label. */
export const OUTCOME_STYLES: Record<string, string> = {
  completed: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300",
  failed: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
  timeout: "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300",
  cancelled: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  budget: "bg-orange-100 text-orange-800 dark:bg-orange-950 dark:text-orange-300",
  max_turns: "bg-orange-100 text-orange-800 dark:bg-orange-950 dark:text-orange-300",
  skipped: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  running: "bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-300",
  queued: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  waiting_approval: "bg-violet-100 text-violet-800 dark:bg-violet-950 dark:text-violet-300",
};

export function StatusBadge({ status, outcome }: { status: string; outcome?: string }) {
  const label = status === "finished" ? (outcome ?? "finished") : status.replace("_", " ");
  const style = OUTCOME_STYLES[status === "finished" ? (outcome ?? "completed") : status] ?? OUTCOME_STYLES.queued;
  return (
    <span className={`inline-flex rounded px-2 py-0.5 text-xs font-medium ${style}`} data-testid="run-status">
      {label}
    </span>
  );
}

