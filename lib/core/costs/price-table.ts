/**
 * The model price table: a model name gets the newest price (by effective date, not after the
 * moment of use) whose regex matches it; among prices of one date the most specific (longest)
 * pattern wins. Patterns run on re2js, so a pasted pattern cannot hang the server.
 */
import { compileLinearRegex } from "@/lib/core/hooks/linear-regex";

export interface ModelPrice {
  id?: string;
  modelPattern: string;
  inputUsdPerM: number;
  outputUsdPerM: number;
  cachedUsdPerM: number;
  effectiveFrom: Date;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens?: number;
}

/** A pattern that does not compile matches nothing (the editor refuses to save one). */
/** Compiled price patterns: the table is asked on every model call, and RE2 compiling is not cheap. */
const compiled = new Map<string, { test(text: string): boolean } | null>();
const COMPILED_CAP = 1_000;

export function matchesModel(pattern: string, model: string): boolean {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    try {
      regex = compileLinearRegex(pattern);
    } catch {
      regex = null;
    }
    if (compiled.size >= COMPILED_CAP) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex !== null && regex.test(model);
}

export function pickPrice<P extends ModelPrice>(prices: readonly P[], model: string, at: Date = new Date()): P | undefined {
  let best: P | undefined;
  for (const price of prices) {
    if (price.effectiveFrom > at) continue;
    if (!matchesModel(price.modelPattern, model)) continue;
    if (
      !best ||
      price.effectiveFrom > best.effectiveFrom ||
      (price.effectiveFrom.getTime() === best.effectiveFrom.getTime() && price.modelPattern.length > best.modelPattern.length)
    ) {
      best = price;
    }
  }
  return best;
}

/** USD for one call. `inputTokens` includes cached tokens, which are charged at the cached rate. */
export function costOfUsage(price: ModelPrice | undefined, usage: Usage): number {
  if (!price) return 0;
  const cached = Math.min(usage.cachedTokens ?? 0, usage.inputTokens);
  const usd =
    ((usage.inputTokens - cached) * price.inputUsdPerM + cached * price.cachedUsdPerM + usage.outputTokens * price.outputUsdPerM) /
    1_000_000;
  return Math.round(usd * 1e9) / 1e9;
}
