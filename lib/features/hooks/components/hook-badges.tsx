import { clsx } from "clsx";
import type { ReactNode } from "react";

const TONES = {
  indigo: "bg-indigo-50 text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300",
  zinc: "bg-zinc-100 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300",
  amber: "bg-amber-50 text-amber-800 dark:bg-amber-950 dark:text-amber-200",
  red: "bg-red-50 text-red-700 dark:bg-red-950 dark:text-red-300",
  emerald: "bg-emerald-50 text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300",
} as const;

export function Badge({ tone = "zinc", mono, children, testId }: { tone?: keyof typeof TONES; mono?: boolean; children: ReactNode; testId?: string }) {
  return (
    <span className={clsx("inline-flex items-center rounded px-1.5 py-0.5 text-xs", mono && "font-mono", TONES[tone])} data-testid={testId}>
      {children}
    </span>
  );
}

/** What a hook does at a glance: event, action, whether it runs code (admin only), and whether it is live. */
export function HookBadges({ event, actionType, enabled, mode, runsCode }: { event: string; actionType: string; enabled: boolean; mode?: string; runsCode?: boolean }) {
  return (
    <span className="flex flex-wrap items-center gap-1.5">
      <Badge tone="indigo" mono testId="hook-event">
        {event}
      </Badge>
      <Badge mono testId="hook-action">
        {actionType}
      </Badge>
      {runsCode && <Badge tone="red">admin only</Badge>}
      {mode === "shadow" && (
        <Badge tone="amber" testId="hook-shadow">
          shadow
        </Badge>
      )}
      <Badge tone={enabled ? "emerald" : "zinc"} testId="hook-state">
        {enabled ? "enabled" : "disabled"}
      </Badge>
    </span>
  );
}
