import { expect, test } from "vitest";
import { costOfUsage, pickPrice, type ModelPrice } from "@/lib/core/costs/price-table";
import { PUBLISHED_PRICES } from "./published-prices";

test("each model gets its own price, not a prefix's", () => {
  expect(pickPrice(PUBLISHED_PRICES, "openai:gpt-4.1-mini")?.inputUsdPerM).toBe(0.4);
  expect(pickPrice(PUBLISHED_PRICES, "openai:gpt-4.1")?.inputUsdPerM).toBe(2);
  expect(pickPrice(PUBLISHED_PRICES, "openai:gpt-4.1-2025-04-14")?.inputUsdPerM).toBe(2);
  expect(pickPrice(PUBLISHED_PRICES, "anthropic:claude-sonnet-4-5-20250929")?.outputUsdPerM).toBe(15);
  expect(pickPrice(PUBLISHED_PRICES, "scripted")?.inputUsdPerM).toBe(1);
  expect(pickPrice(PUBLISHED_PRICES, "openai:unknown-model")).toBeUndefined();
});

test("the newest effective price applies, never a future one", () => {
  const prices: ModelPrice[] = [
    { modelPattern: "^m$", inputUsdPerM: 1, outputUsdPerM: 1, cachedUsdPerM: 0, effectiveFrom: new Date("2025-01-01") },
    { modelPattern: "^m$", inputUsdPerM: 2, outputUsdPerM: 2, cachedUsdPerM: 0, effectiveFrom: new Date("2026-01-01") },
    { modelPattern: "^m$", inputUsdPerM: 3, outputUsdPerM: 3, cachedUsdPerM: 0, effectiveFrom: new Date("2030-01-01") },
  ];
  expect(pickPrice(prices, "m", new Date("2025-06-01"))?.inputUsdPerM).toBe(1);
  expect(pickPrice(prices, "m", new Date("2026-11-21"))?.inputUsdPerM).toBe(2);
});

test("cost charges cached input at the cached rate", () => {
  const price = pickPrice(PUBLISHED_PRICES, "openai:gpt-4.1")!;
  // 1M input of which 400k cached, 100k output: 0.6*2 + 0.4*0.5 + 0.1*8 = 2.2
  expect(costOfUsage(price, { inputTokens: 1_000_000, cachedTokens: 400_000, outputTokens: 100_000 })).toBeCloseTo(2.2, 9);
  expect(costOfUsage(undefined, { inputTokens: 5, outputTokens: 5 })).toBe(0);
});

test("a broken pattern matches nothing instead of throwing", () => {
  const prices: ModelPrice[] = [{ modelPattern: "(", inputUsdPerM: 1, outputUsdPerM: 1, cachedUsdPerM: 0, effectiveFrom: new Date(0) }];
  expect(pickPrice(prices, "anything")).toBeUndefined();
});
