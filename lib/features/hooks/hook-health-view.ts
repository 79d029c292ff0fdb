/**
 * What a hook's health says at a glance, from its ledger counts over a window (db/queries/hook-health.ts):
 * a hook whose latest run failed is `failing` (red) even when its onFailure let the run go on; one
 * that failed in the window but ran fine since is `flaky` (amber); one that ran without failing is
 * `ok`; one that did not run at all is `idle`.
 */
export const HEALTH_WINDOW_DAYS = 7;

export type HealthState = "failing" | "flaky" | "ok" | "idle";

export interface HookHealthView {
  state: HealthState;
  fired: number;
  blocked: number;
  failed: number;
  lastError?: string;
  /** ISO time of the last error. */
  lastErrorAt?: string;
  windowDays: number;
}

export interface HealthCounts {
  fired: number;
  blocked: number;
  failed: number;
  failingNow: boolean;
  lastError: string | null;
  lastErrorAt: Date | null;
}

export function healthView(counts: HealthCounts | undefined, windowDays = HEALTH_WINDOW_DAYS): HookHealthView {
  if (!counts || (counts.fired === 0 && counts.failed === 0)) return { state: "idle", fired: 0, blocked: 0, failed: 0, windowDays };
  const state: HealthState = counts.failingNow ? "failing" : counts.failed > 0 ? "flaky" : "ok";
  return {
    state,
    fired: counts.fired,
    blocked: counts.blocked,
    failed: counts.failed,
    ...(counts.lastError !== null && { lastError: counts.lastError }),
    ...(counts.lastErrorAt && { lastErrorAt: counts.lastErrorAt.toISOString() }),
    windowDays,
  };
}

/** The badge's words: "failing: 2 of 2 failed", "1 of 5 failed", "5 fired · 1 blocked", "not fired in 7 d". */
export function healthText(view: HookHealthView): string {
  switch (view.state) {
    case "failing":
      return `failing: ${view.failed} of ${view.fired} failed`;
    case "flaky":
      return `${view.failed} of ${view.fired} failed`;
    case "ok":
      return `${view.fired} fired${view.blocked ? ` · ${view.blocked} blocked` : ""}`;
    case "idle":
      return `not fired in ${view.windowDays} d`;
  }
}

export function healthWindowStart(now: Date = new Date(), windowDays = HEALTH_WINDOW_DAYS): Date {
  return new Date(now.getTime() - windowDays * 24 * 60 * 60_000);
}
