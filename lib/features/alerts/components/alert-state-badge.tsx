import { clsx } from "clsx";

const STYLES = {
  firing: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200",
  reminder: "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-200",
  resolved: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200",
  ok: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200",
  disabled: "bg-zinc-100 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300",
} as const;

/** A rule's state (firing, ok, disabled) or a history row's (firing, reminder, resolved), as a word in colour. */
export function AlertStateBadge({ state }: { state: keyof typeof STYLES }) {
  return (
    <span className={clsx("inline-block rounded-full px-2 py-0.5 text-xs font-medium", STYLES[state])} data-testid="alert-state" data-state={state}>
      {state}
    </span>
  );
}
