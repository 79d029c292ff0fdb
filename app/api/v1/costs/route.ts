import { apiRoute } from "@/lib/platform/api/route";
import { buildCostReport } from "@/lib/features/costs/cost-report";
import { costsQuerySchema } from "@/lib/features/costs/schema";
import { userIdOfPerson } from "@/lib/platform/auth/person-reference";

const DAY = 24 * 3600 * 1000;

/** Totals per agent, model and day for a window (default: the last 30 days), top runs and budgets. */
export const GET = apiRoute({ role: "viewer", query: costsQuerySchema }, async ({ db, query, principal }) => {
  const to = query.to ?? new Date(Date.now() + 60_000);
  const from = query.from ?? new Date(to.getTime() - 30 * DAY);
  return buildCostReport(db, { projectId: principal.projectId, from, to, ...(query.actor && { actorUserId: await userIdOfPerson(db, query.actor) }) });
});

