import { asc, count, eq } from "drizzle-orm";
import type { ModelPrice } from "@/lib/core/costs/price-table";
import type { Db } from "../client";
import { modelPrices } from "../schema";

const columns = {
  id: modelPrices.id,
  modelPattern: modelPrices.modelPattern,
  inputUsdPerM: modelPrices.inputUsdPerM,
  outputUsdPerM: modelPrices.outputUsdPerM,
  cachedUsdPerM: modelPrices.cachedUsdPerM,
  effectiveFrom: modelPrices.effectiveFrom,
};

const priceRows = (projectId: string, prices: ModelPrice[]) =>
  prices.map((p) => ({
    projectId,
    modelPattern: p.modelPattern,
    inputUsdPerM: p.inputUsdPerM,
    outputUsdPerM: p.outputUsdPerM,
    cachedUsdPerM: p.cachedUsdPerM,
    effectiveFrom: p.effectiveFrom,
  }));

/** A project's price overrides (lib/features/costs/project-prices.ts puts them over the built-in catalogue). */
export async function listPrices(db: Db, params: { projectId: string }): Promise<(ModelPrice & { id: string })[]> {
  return db
    .select(columns)
    .from(modelPrices)
    .where(eq(modelPrices.projectId, params.projectId))
    .orderBy(asc(modelPrices.modelPattern), asc(modelPrices.effectiveFrom));
}

/** Seeds prices into a project that has none (the default project's first start). */
export async function seedPricesIfEmpty(db: Db, params: { projectId: string; prices: ModelPrice[] }) {
  const [{ n }] = await db.select({ n: count() }).from(modelPrices).where(eq(modelPrices.projectId, params.projectId));
  if (n > 0) return false;
  await db.insert(modelPrices).values(priceRows(params.projectId, params.prices));
  return true;
}

/** Replaces a project's whole table (PUT /api/v1/prices), in one transaction; other projects' stay. */
export async function replacePrices(db: Db, params: { projectId: string; prices: ModelPrice[] }) {
  return db.transaction(async (tx) => {
    await tx.delete(modelPrices).where(eq(modelPrices.projectId, params.projectId));
    if (params.prices.length) await tx.insert(modelPrices).values(priceRows(params.projectId, params.prices));
    return tx
      .select(columns)
      .from(modelPrices)
      .where(eq(modelPrices.projectId, params.projectId))
      .orderBy(asc(modelPrices.modelPattern));
  });
}
