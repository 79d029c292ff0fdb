/**
 * A project's spend over a window, as GET /api/v1/costs answers it: per agent, person, model and
 * day, the costliest runs, and each agent's budgets against what was spent today. Its JSON shape is
 * declared from this (lib/features/costs/schema.ts), so the dashboard reads the same type.
 */
import type { Db } from "@/db/client";
import { costByAgent, costByDay, costByPerson, costByModel, dailyBudgets, topRunsByCost } from "@/db/queries/costs";
import { loadPriceBook } from "./project-prices";

export async function buildCostReport(db: Db, params: { projectId: string; from: Date; to: Date; actorUserId?: string }) {
  const { projectId, from, to } = params;
  const today = new Date();
  const since = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
  const window = { projectId, from, to, ...(params.actorUserId && { actorUserId: params.actorUserId }) };
  const [byAgent, byPerson, models, byDay, topRuns, budgets, prices] = await Promise.all([
    costByAgent(db, window),
    costByPerson(db, window),
    costByModel(db, window),
    costByDay(db, window),
    topRunsByCost(db, { ...window, limit: 10 }),
    dailyBudgets(db, { projectId, since }),
    loadPriceBook(db, projectId),
  ]);
  // Calls with tokens that cost nothing were recorded with no price (a later price does not reprice them).
  const byModel = models.map(({ zeroCostCalls, ...m }) => ({ ...m, unpricedCalls: prices.freeOnPurpose(m.model ?? "") ? 0 : zeroCostCalls }));
  return { from, to, byAgent, byPerson, byModel, byDay, topRuns, budgets };
}
