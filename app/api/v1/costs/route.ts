import { z } from "zod";
import { costByAgent, costByDay, costByModel, dailyBudgets, topRunsByCost } from "@/db/queries/costs";
import { apiRoute } from "@/lib/platform/api/route";
import { pgDateSchema } from "@/lib/core/safe-input";

const DAY = 24 * 3600 * 1000;

const costsQuerySchema = z.object({
  from: pgDateSchema.optional(),
  to: pgDateSchema.optional(),
});

/** Totals per agent, model and day for a window (default: the last 30 days), top runs and budgets. */
export const GET = apiRoute({ role: "viewer", query: costsQuerySchema }, async ({ db, query, principal }) => {
  const to = query.to ?? new Date(Date.now() + 60_000);
  const from = query.from ?? new Date(to.getTime() - 30 * DAY);
  const today = new Date();
  const since = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
  const window = { projectId: principal.projectId, from, to };
  const [byAgent, byModel, byDay, topRuns, budgets] = await Promise.all([
    costByAgent(db, window),
    costByModel(db, window),
    costByDay(db, window),
    topRunsByCost(db, { ...window, limit: 10 }),
    dailyBudgets(db, { projectId: principal.projectId, since }),
  ]);
  return { from, to, byAgent, byModel, byDay, topRuns, budgets };
});
