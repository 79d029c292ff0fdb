import { audited } from "@/db/queries/audit";
import { listPrices, replacePrices } from "@/db/queries/prices";
import { apiRoute } from "@/lib/platform/api/route";
import { pricesBodySchema } from "@/lib/features/costs/schema";

/** The project's overrides; a model none of them prices costs what the built-in catalogue says. */
export const GET = apiRoute({ role: "viewer" }, async ({ db, principal }) => ({ items: await listPrices(db, { projectId: principal.projectId }) }));

export const PUT = apiRoute({ role: "admin", body: pricesBodySchema }, async ({ db, body, principal }) => {
  const { items } = await audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "prices.replace", entityType: "model_prices" },
    async (tx) => ({
      before: await listPrices(tx, { projectId: principal.projectId }),
      items: await replacePrices(tx, { projectId: principal.projectId, prices: body.items }),
    }),
    ({ before, items }) => ({ before, after: items }),
  );
  return { items };
});
