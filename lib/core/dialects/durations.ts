/** Duration strings of the dialects ("4h", "30s", "500ms", "1h30m") ↔ milliseconds. */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export type DurationUnit = keyof typeof UNIT_MS;

const PART = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)/gy;

/** Milliseconds of "4h" / "30s" / "1h30m"; undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "") return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let match = PART.exec(trimmed); match; match = PART.exec(trimmed)) {
    total += Number(match[1]) * UNIT_MS[match[2] as DurationUnit];
    consumed = PART.lastIndex;
  }
  return consumed === trimmed.length ? Math.round(total) : undefined;
}

/** The shortest exact form: 14_400_000 → "4h", 90_000 → "90s", 1500 → "1500ms". */
export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m", "s"] as const) {
    if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}

export function toMilliseconds(value: number, unit: DurationUnit): number {
  return Math.round(value * UNIT_MS[unit]);
}
