/**
 * Seeded prices (USD per million tokens) as the providers publish them, plus one for the
 * keyless `scripted` model so demo runs show a cost. Editable in the dashboard and by API.
 */
import type { ModelPrice } from "@/lib/core/costs/price-table";

const SINCE = new Date("2025-01-01T00:00:00Z");

const row = (modelPattern: string, inputUsdPerM: number, outputUsdPerM: number, cachedUsdPerM: number): ModelPrice => ({
  modelPattern,
  inputUsdPerM,
  outputUsdPerM,
  cachedUsdPerM,
  effectiveFrom: SINCE,
});

export const PUBLISHED_PRICES: ModelPrice[] = [
  row("^scripted$", 1, 2, 0.1),
  row("^openai:gpt-5(-\\d{4}-\\d{2}-\\d{2})?$", 1.25, 10, 0.125),
  row("^openai:gpt-5-mini(-\\d{4}-\\d{2}-\\d{2})?$", 0.25, 2, 0.025),
  row("^openai:gpt-5-nano(-\\d{4}-\\d{2}-\\d{2})?$", 0.05, 0.4, 0.005),
  row("^openai:gpt-4\\.1(-\\d{4}-\\d{2}-\\d{2})?$", 2, 8, 0.5),
  row("^openai:gpt-4\\.1-mini(-\\d{4}-\\d{2}-\\d{2})?$", 0.4, 1.6, 0.1),
  row("^openai:gpt-4\\.1-nano(-\\d{4}-\\d{2}-\\d{2})?$", 0.1, 0.4, 0.025),
  row("^openai:gpt-4o(-\\d{4}-\\d{2}-\\d{2})?$", 2.5, 10, 1.25),
  row("^openai:gpt-4o-mini(-\\d{4}-\\d{2}-\\d{2})?$", 0.15, 0.6, 0.075),
  row("^openai:o3(-\\d{4}-\\d{2}-\\d{2})?$", 2, 8, 0.5),
  row("^openai:o4-mini(-\\d{4}-\\d{2}-\\d{2})?$", 1.1, 4.4, 0.275),
  row("^anthropic:claude-opus-4(-[0-9-]+)?$", 15, 75, 1.5),
  row("^anthropic:claude-opus-4-1(-\\d{8})?$", 15, 75, 1.5),
  row("^anthropic:claude-sonnet-4(-[0-9-]+)?$", 3, 15, 0.3),
  row("^anthropic:claude-sonnet-4-5(-\\d{8})?$", 3, 15, 0.3),
  row("^anthropic:claude-haiku-4-5(-\\d{8})?$", 1, 5, 0.1),
  row("^anthropic:claude-3-5-haiku(-\\d{8}|-latest)?$", 0.8, 4, 0.08),
];
