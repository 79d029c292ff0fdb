import { z } from "zod";
import { audited } from "@/db/queries/audit";
import { listPrices, replacePrices } from "@/db/queries/prices";
import { apiRoute } from "@/lib/platform/api/route";
import { pgDateSchema } from "@/lib/core/safe-input";
import { regexError } from "@/lib/core/hooks/linear-regex";
import { issueFrom } from "@/lib/core/issues";

const priceSchema = z.object({
  modelPattern: z.string().min(1).superRefine(issueFrom(regexError)),
  inputUsdPerM: z.number().min(0),
  outputUsdPerM: z.number().min(0),
  cachedUsdPerM: z.number().min(0).default(0),
  effectiveFrom: pgDateSchema.default(new Date("2020-01-01T00:00:00Z")),
});

/** The project's overrides; a model none of them prices costs what the built-in catalogue says. */
export const GET = apiRoute({ role: "viewer" }, async ({ db, principal }) => ({ items: await listPrices(db, { projectId: principal.projectId }) }));

export const PUT = apiRoute({ role: "admin", body: z.object({ items: z.array(priceSchema).max(1000) }) }, async ({ db, body, principal }) => {
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
