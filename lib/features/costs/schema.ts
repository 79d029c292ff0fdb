/**
 * What the costs feature takes and answers, declared once. Its answers: the report as
 * buildCostReport assembles it, sent by GET /api/v1/costs and read by the cost dashboard with that
 * type, and the project's price overrides as db/queries/prices.ts selects them (GET and PUT
 * /api/v1/prices), read by the price table's editor. Its inputs: the report's window and the table.
 */
import { z } from "zod";
import type { listPrices } from "@/db/queries/prices";
import type { Json } from "@/lib/platform/api/json";
import { personReferenceSchema } from "@/lib/platform/auth/person-reference";
import { pgDateSchema } from "@/lib/core/safe-input";
import { issueFrom } from "@/lib/core/issues";
import { regexError } from "@/lib/core/hooks/linear-regex";
import type { buildCostReport } from "./cost-report";

/** GET /api/v1/costs. */
export type CostReport = Json<Awaited<ReturnType<typeof buildCostReport>>>;

/** One price override of GET /api/v1/prices `items`; PUT answers the table as saved, in the same rows. */
export type PriceResponse = Json<Awaited<ReturnType<typeof listPrices>>[number]>;

/** GET /api/v1/costs: the window (default: the last 30 days) and whose spend. */
export const costsQuerySchema = z.object({
  from: pgDateSchema.optional(),
  to: pgDateSchema.optional(),
  /** One person's spend: their user id or email. */
  actor: personReferenceSchema.optional(),
});

/** One price override: a model pattern (a linear-time regex) and its prices per million tokens. */
export const priceSchema = z.object({
  modelPattern: z.string().min(1).superRefine(issueFrom(regexError)),
  inputUsdPerM: z.number().min(0),
  outputUsdPerM: z.number().min(0),
  cachedUsdPerM: z.number().min(0).default(0),
  effectiveFrom: pgDateSchema.default(new Date("2020-01-01T00:00:00Z")),
});

/** PUT /api/v1/prices: the whole table, replacing the project's. */
export const pricesBodySchema = z.object({ items: z.array(priceSchema).max(1000) });
