/**
 * The strings inside a JSON value (a tool output is text or JSON): read them, or rewrite each one
 * where it stands (redaction), the structure kept.
 */
import { isPlainObject } from "./merge-patch";

/** Every string in `value`, each once. */
export function stringsOf(value: unknown, out: Set<string> = new Set()): string[] {
  if (typeof value === "string") out.add(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (isPlainObject(value)) for (const item of Object.values(value)) stringsOf(item, out);
  return [...out];
}

/** The value with every string in it passed through `map`. */
export function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, map)]));
  return value;
}
