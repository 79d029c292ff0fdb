/**
 * The cost charts' axes, worked out here rather than left to the chart: recharts picks ticks like
 * 0.0125, 0.015, 0.0175 and a fixed "$0.00" format said three of them as "$0.02"; and a model name
 * longer than the label column was cut mid-word with nothing to read it by. Pure, tested alone.
 */

/** About four round ticks from 0 to at least `max`, each said with enough decimals to be told apart. */
export function usdAxis(max: number, count = 4): { ticks: number[]; domainMax: number; format: (value: number) => string } {
  if (!(max > 0) || !Number.isFinite(max)) return { ticks: [0], domainMax: 1, format: () => "$0" };
  const rough = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? 10 * magnitude;
  const steps = Math.ceil(max / step - 1e-9);
  // Rounded to the step's own digits, so 0.1 + 0.2 is 0.3 and a label never repeats.
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9) + (step / magnitude === 2.5 ? 1 : 0));
  const ticks = Array.from({ length: steps + 1 }, (_, i) => Number((i * step).toFixed(decimals + 2)));
  const shown = step >= 1 ? decimals : Math.max(2, decimals);
  return {
    ticks,
    domainMax: ticks[ticks.length - 1],
    format: (value) => (value === 0 ? "$0" : `$${value.toFixed(shown)}`),
  };
}

/** Characters of an 11 px label that fit in `width` px (a mono-ish 6.5 px a character). */
const CHAR_PX = 6.5;

/** The label column's width for these names: the longest, between `min` and `max` px. */
export function labelColumnWidth(names: readonly string[], min = 60, max = 180): number {
  const longest = names.reduce((n, name) => Math.max(n, name.length), 0);
  return Math.round(Math.min(max, Math.max(min, longest * CHAR_PX + 12)));
}

/** The name as it fits in `width` px: whole, or cut with an ellipsis (the full name goes in its title). */
export function fitLabel(name: string, width: number): string {
  const chars = Math.max(4, Math.floor((width - 12) / CHAR_PX));
  return name.length <= chars ? name : `${name.slice(0, chars - 1)}…`;
}
