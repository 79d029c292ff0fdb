import { clsx } from "clsx";
import Link from "next/link";
import type { ReactNode } from "react";
import type { Enforcement } from "@/lib/core/hooks/enforcement";
import { healthText, type HealthState, type HookHealthView } from "../hook-health-view";

export type { HookHealthView } from "../hook-health-view";

const TONES = {
  indigo: "bg-indigo-50 text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300",
  zinc: "bg-zinc-100 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300",
  amber: "bg-amber-50 text-amber-800 dark:bg-amber-950 dark:text-amber-200",
  red: "bg-red-50 text-red-700 dark:bg-red-950 dark:text-red-300",
  emerald: "bg-emerald-50 text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300",
  sky: "bg-sky-50 text-sky-800 dark:bg-sky-950 dark:text-sky-200",
} as const;

export function Badge({ tone = "zinc", mono, children, testId }: { tone?: keyof typeof TONES; mono?: boolean; children: ReactNode; testId?: string }) {
  return (
    <span className={clsx("inline-flex items-center rounded px-1.5 py-0.5 text-xs", mono && "font-mono", TONES[tone])} data-testid={testId}>
      {children}
    </span>
  );
}

/** Whether a hook can do what it says here, as lib/core/hooks/enforcement.ts decides it. */
export type EnforcementBadge = Enforcement;

/**
 * The states a list of hooks must call out, each with its words: red where the hook cannot run here
 * (it decides nothing, or refuses everything it matches), sky where it runs on the developers'
 * machines rather than on this server. Enforced and off say nothing beyond the enabled badge.
 */
export function enforcementMark(enforcement: EnforcementBadge | undefined): { label: string; tone: "red" | "sky"; why: string } | undefined {
  if (!enforcement || enforcement.state === "enforced" || enforcement.state === "off") return undefined;
  const label = { not_enforced: "not enforced", fails_closed: "fails closed", on_agent: "runs on the developer's machine" }[enforcement.state];
  return { label, tone: enforcement.state === "on_agent" ? "sky" : "red", why: enforcement.why };
}

/** What a hook does at a glance: event, action, whether it runs code (admin only), and whether it is live and can run here. */
export function HookBadges({
  event,
  actionType,
  enabled,
  mode,
  runsCode,
  enforcement,
}: {
  event: string;
  actionType: string;
  enabled: boolean;
  mode?: string;
  runsCode?: boolean;
  enforcement?: EnforcementBadge;
}) {
  const mark = enforcementMark(enforcement);
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
      {mark && (
        <span title={mark.why}>
          <Badge tone={mark.tone} testId="hook-enforcement">
            {mark.label}
          </Badge>
          <span className="sr-only">: {mark.why}</span>
        </span>
      )}
    </span>
  );
}

const HEALTH_TONES: Record<HealthState, keyof typeof TONES> = { failing: "red", flaky: "amber", ok: "zinc", idle: "zinc" };

/**
 * A hook's health over the last days (fired, blocked, failed), its last error on hover: a hook that
 * fails on every run is red here whatever verdict its onFailure gave.
 */
export function HookHealthBadge({ health }: { health: HookHealthView | undefined }) {
  if (!health) return null;
  const title = health.lastError ? `Last error${health.lastErrorAt ? ` (${health.lastErrorAt.slice(0, 16).replace("T", " ")} UTC)` : ""}: ${health.lastError}` : `Over the last ${health.windowDays} days`;
  return (
    <span title={title} data-testid="hook-health" data-state={health.state}>
      <Badge tone={HEALTH_TONES[health.state]}>{healthText(health)}</Badge>
      {health.lastError && <span className="sr-only">. Last error: {health.lastError}</span>}
    </span>
  );
}

/** The hook page's health panel: the counts over the window, the last error in full, the ledger rows behind them. */
export function HookHealthPanel({ health, hookKey }: { health: HookHealthView; hookKey: string }) {
  const border = health.state === "failing" ? "border-red-300 dark:border-red-800" : health.state === "flaky" ? "border-amber-300 dark:border-amber-800" : "border-zinc-200 dark:border-zinc-800";
  return (
    <section aria-labelledby="hook-health-title" className={`mb-4 rounded-lg border bg-white p-3 text-sm dark:bg-zinc-900 ${border}`} data-testid="hook-health-panel" data-state={health.state}>
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
        <h2 id="hook-health-title" className="font-semibold">
          Health, last {health.windowDays} days
        </h2>
        <HookHealthBadge health={health} />
        <span>
          <span className="text-zinc-500 dark:text-zinc-400">fired</span> <span data-testid="health-fired">{health.fired}</span>
        </span>
        <span>
          <span className="text-zinc-500 dark:text-zinc-400">blocked</span> <span data-testid="health-blocked">{health.blocked}</span>
        </span>
        <span>
          <span className="text-zinc-500 dark:text-zinc-400">failed</span> <span data-testid="health-failed">{health.failed}</span>
        </span>
        <Link href={`/audit?tab=ledger&hook=${encodeURIComponent(hookKey)}`} className="ml-auto text-xs text-indigo-600 hover:underline dark:text-indigo-400">
          Its ledger rows
        </Link>
      </div>
      {health.lastError && (
        <p className="mt-2 break-words text-red-700 dark:text-red-300" data-testid="health-last-error">
          Last error{health.lastErrorAt ? ` (${health.lastErrorAt.slice(0, 16).replace("T", " ")} UTC)` : ""}: {health.lastError}
        </p>
      )}
    </section>
  );
}
