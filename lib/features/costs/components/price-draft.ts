/**
 * The price table as the editor holds it: text fields as typed, so a half-typed number is not
 * lost, converted to the API's shape only on save (bad values go through and come back as zod
 * issues naming the row and field).
 */
import { pickPrice, type ModelPrice } from "@/lib/core/costs/price-table";
import type { PriceResponse } from "../schema";

export interface PriceDraft {
  key: string;
  modelPattern: string;
  inputUsdPerM: string;
  outputUsdPerM: string;
  cachedUsdPerM: string;
  /** YYYY-MM-DD, the start of that day in UTC. */
  effectiveFrom: string;
}

let nextKey = 0;
const newKey = () => `row-${nextKey++}`;

export function draftFromRow(row: PriceResponse): PriceDraft {
  return {
    key: row.id,
    modelPattern: row.modelPattern,
    inputUsdPerM: String(row.inputUsdPerM),
    outputUsdPerM: String(row.outputUsdPerM),
    cachedUsdPerM: String(row.cachedUsdPerM),
    effectiveFrom: row.effectiveFrom.slice(0, 10),
  };
}

export function emptyDraft(): PriceDraft {
  return { key: newKey(), modelPattern: "", inputUsdPerM: "", outputUsdPerM: "", cachedUsdPerM: "0", effectiveFrom: new Date().toISOString().slice(0, 10) };
}

const numberOrText = (text: string): number | string => (text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : text);

export function draftToRequest(draft: PriceDraft) {
  return {
    modelPattern: draft.modelPattern,
    inputUsdPerM: numberOrText(draft.inputUsdPerM),
    outputUsdPerM: numberOrText(draft.outputUsdPerM),
    cachedUsdPerM: numberOrText(draft.cachedUsdPerM),
    effectiveFrom: draft.effectiveFrom ? `${draft.effectiveFrom}T00:00:00Z` : draft.effectiveFrom,
  };
}

/** The rows usable for a "test match" right now; a row with an unreadable field is left out. */
export function draftToPrice(draft: PriceDraft): (ModelPrice & { key: string }) | undefined {
  const numbers = [draft.inputUsdPerM, draft.outputUsdPerM, draft.cachedUsdPerM].map(Number);
  const effectiveFrom = new Date(`${draft.effectiveFrom}T00:00:00Z`);
  if (!draft.modelPattern || numbers.some((n) => !Number.isFinite(n)) || Number.isNaN(effectiveFrom.getTime())) return undefined;
  const [inputUsdPerM, outputUsdPerM, cachedUsdPerM] = numbers;
  return { key: draft.key, modelPattern: draft.modelPattern, inputUsdPerM, outputUsdPerM, cachedUsdPerM, effectiveFrom };
}

/** The row a model name would be priced by now, over the rows as they stand in the editor. */
export function matchDraft(drafts: readonly PriceDraft[], model: string) {
  const prices = drafts.map(draftToPrice).filter((p) => p !== undefined);
  return model.trim() ? pickPrice(prices, model.trim()) : undefined;
}
