import { asc, count } from "drizzle-orm";
import type { ModelPrice } from "@/lib/features/costs/price-table";
import type { Db } from "../client";
import { modelPrices } from "../schema";

export async function listPrices(db: Db): Promise<(ModelPrice & { id: string })[]> {
  return db.select().from(modelPrices).orderBy(asc(modelPrices.modelPattern), asc(modelPrices.effectiveFrom));
}

/** Seeds the published prices into an empty table (first start only). */
export async function seedPricesIfEmpty(db: Db, params: { prices: ModelPrice[] }) {
  const [{ n }] = await db.select({ n: count() }).from(modelPrices);
  if (n > 0) return false;
  await db.insert(modelPrices).values(params.prices);
  return true;
}

/** Replaces the whole table (PUT /api/v1/prices), in one transaction. */
export async function replacePrices(db: Db, params: { prices: ModelPrice[] }) {
  return db.transaction(async (tx) => {
    await tx.delete(modelPrices);
    if (params.prices.length) await tx.insert(modelPrices).values(params.prices);
    return tx.select().from(modelPrices).orderBy(asc(modelPrices.modelPattern));
  });
}
