/**
 * What a call costs in a project: the project's price overrides (model_prices rows) first, then
 * the built-in catalogue for a model no override prices at that moment. A run is priced by its
 * own project's overrides, whichever process executes it.
 */
import type { Db } from "@/db/client";
import { listPrices } from "@/db/queries/prices";
import { costOfUsage, pickPrice, type ModelPrice, type Usage } from "@/lib/core/costs/price-table";
import { PUBLISHED_PRICES } from "./published-prices";

export interface ProjectPriceBook {
  priceOf(model: string, at?: Date): ModelPrice | undefined;
  costOf(model: string, usage: Usage, at?: Date): number;
  /**
   * The model is priced at zero on purpose (a local model): its calls with tokens and no cost are
   * free, not recorded without a price (the costs page says the latter).
   */
  freeOnPurpose(model: string, at?: Date): boolean;
}

export function priceBook(overrides: readonly ModelPrice[]): ProjectPriceBook {
  const priceOf = (model: string, at: Date = new Date()) => pickPrice(overrides, model, at) ?? pickPrice(PUBLISHED_PRICES, model, at);
  const freeOnPurpose = (model: string, at?: Date) => {
    const price = priceOf(model, at);
    return price !== undefined && price.inputUsdPerM === 0 && price.outputUsdPerM === 0;
  };
  return { priceOf, costOf: (model, usage, at) => costOfUsage(priceOf(model, at), usage), freeOnPurpose };
}

export async function loadPriceBook(db: Db, projectId: string): Promise<ProjectPriceBook> {
  return priceBook(await listPrices(db, { projectId }));
}
