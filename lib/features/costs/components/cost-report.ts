import type { CostReport } from "../schema";


export const COST_WINDOWS = [7, 30, 90] as const;
export type CostWindowDays = (typeof COST_WINDOWS)[number];

const DAY_MS = 24 * 3600 * 1000;

export function parseWindowDays(value: string | null): CostWindowDays {
  const days = Number(value);
  return (COST_WINDOWS as readonly number[]).includes(days) ? (days as CostWindowDays) : 30;
}

/** Midnight UTC `days - 1` days ago: the window covers whole days, today included, like byDay. */
export function windowStart(days: number, now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (days - 1) * DAY_MS);
}

/** Every day of the window, with zero for days without runs, so the chart's time axis has no holes. */
export function fillDays(byDay: CostReport["byDay"], from: Date, days: number) {
  const known = new Map(byDay.map((d) => [d.day, d]));
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(from.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    return { day, costUsd: known.get(day)?.costUsd ?? 0, runs: known.get(day)?.runs ?? 0 };
  });
}
