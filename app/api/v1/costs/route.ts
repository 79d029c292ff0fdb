import { z } from "zod";
import { costByAgent, costByDay, costByPerson, costByModel, dailyBudgets, topRunsByCost } from "@/db/queries/costs";
import { apiRoute } from "@/lib/platform/api/route";
import { loadPriceBook } from "@/lib/features/costs/project-prices";
import { pgDateSchema } from "@/lib/core/safe-input";
import { personReferenceSchema, userIdOfPerson } from "@/lib/platform/auth/person-reference";

const DAY = 24 * 3600 * 1000;

const costsQuerySchema = z.object({
  from: pgDateSchema.optional(),
  to: pgDateSchema.optional(),
  /** One person's spend: their user id or email. */
  actor: personReferenceSchema.optional(),
});

/** Totals per agent, model and day for a window (default: the last 30 days), top runs and budgets. */
export const GET = apiRoute({ role: "viewer", query: costsQuerySchema }, async ({ db, query, principal }) => {
  const to = query.to ?? new Date(Date.now() + 60_000);
  const from = query.from ?? new Date(to.getTime() - 30 * DAY);
  const today = new Date();
  const since = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
  const window = { projectId: principal.projectId, from, to, ...(query.actor && { actorUserId: await userIdOfPerson(db, query.actor) }) };
  const [byAgent, byPerson, models, byDay, topRuns, budgets, prices] = await Promise.all([
    costByAgent(db, window),
    costByPerson(db, window),
    costByModel(db, window),
    costByDay(db, window),
    topRunsByCost(db, { ...window, limit: 10 }),
    dailyBudgets(db, { projectId: principal.projectId, since }),
    loadPriceBook(db, principal.projectId),
  ]);
  // Calls with tokens that cost nothing were recorded with no price (a later price does not reprice them).
  const byModel = models.map(({ zeroCostCalls, ...m }) => ({ ...m, unpricedCalls: prices.freeOnPurpose(m.model ?? "") ? 0 : zeroCostCalls }));
  return { from, to, byAgent, byPerson, byModel, byDay, topRuns, budgets };
});

