/**
 * What a call costs in a project: the project's price overrides (model_prices rows) first, then
 * the built-in catalogue for a model no override prices at that moment. A run is priced by its
 * own project's overrides, whichever process executes it.
 */
import type { Db } from "@/db/client";
import { listPrices } from "@/db/queries/prices";
import { costOfUsage, pickPrice, type ModelPrice, type Usage } from "./price-table";
import { PUBLISHED_PRICES } from "./published-prices";

export interface ProjectPriceBook {
  priceOf(model: string, at?: Date): ModelPrice | undefined;
  costOf(model: string, usage: Usage, at?: Date): number;
}

export function priceBook(overrides: readonly ModelPrice[]): ProjectPriceBook {
  const priceOf = (model: string, at: Date = new Date()) => pickPrice(overrides, model, at) ?? pickPrice(PUBLISHED_PRICES, model, at);
  return { priceOf, costOf: (model, usage, at) => costOfUsage(priceOf(model, at), usage) };
}

export async function loadPriceBook(db: Db, projectId: string): Promise<ProjectPriceBook> {
  return priceBook(await listPrices(db, { projectId }));
}
