/**
 * A hook spec as stable, readable text: fields in hook-model.md's order, so two versions compare
 * line by line whatever order the database (jsonb) hands the keys back in.
 */
const FIELD_ORDER = ["id", "name", "event", "scope", "enabled", "mode", "matcher", "when", "onOutcomes", "action", "timeoutMs", "onFailure"];

function ordered(value: unknown, order: readonly string[] = []): unknown {
  if (Array.isArray(value)) return value.map((v) => ordered(v));
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  entries.sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
  return Object.fromEntries(entries.map(([k, v]) => [k, ordered(v, k === "action" ? ["type"] : [])]));
}

export function specToText(spec: unknown): string {
  return JSON.stringify(ordered(spec, FIELD_ORDER), null, 2);
}
