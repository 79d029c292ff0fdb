/** The shape of GET /api/v1/costs as the browser receives it (dates as ISO strings). */
export interface CostReport {
  from: string;
  to: string;
  byAgent: { agentId: string; agentName: string; costUsd: number; runs: number; inputTokens: number; outputTokens: number }[];
  /** Bridged sessions per person: whose coding agents spent it. */
  byPerson: { actorKey: string; actorUserId: string | null; label: string; costUsd: number; runs: number; inputTokens: number; outputTokens: number }[];
  /** `unpricedCalls`: calls recorded with no price for the model, counted as $0. */
  byModel: { model: string | null; costUsd: number; calls: number; inputTokens: number; outputTokens: number; unpricedCalls: number }[];
  byDay: { day: string; costUsd: number; runs: number }[];
  topRuns: { id: string; agentName: string; prompt: string; costUsd: number; createdAt: string; outcome: string | null }[];
  budgets: {
    agentId: string;
    agentName: string;
    dailyBudgetUsd: number | null;
    budgetUsd: number | null;
    dailyBudgetPerPersonUsd: number | null;
    topPerson: { label: string; spentTodayUsd: number } | null;
    spentTodayUsd: number;
  }[];
}

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
