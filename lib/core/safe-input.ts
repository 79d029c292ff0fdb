/**
 * Text and shapes PostgreSQL (or our own recursion) cannot take, caught at the edge for every
 * value from outside: a NUL character (text and jsonb refuse it), a lone UTF-16 surrogate (jsonb
 * refuses its escape; text would silently store U+FFFD), and JSON nested deeper than any real
 * request (a recursive walk or serializer would overflow the stack). Used by `apiRoute` on the
 * body, query and path of every request and by the server actions on their inputs, so a handler
 * never sees such a value.
 */
import { z } from "zod";
import { issuePath, type Issue } from "./issues";

/** Deeper than any hook, agent script or event payload we take; far below the stack's limit. */
export const MAX_JSON_DEPTH = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why this text cannot be stored, or undefined when it can. */
export function unsafeTextReason(text: string): string | undefined {
  if (text.includes("\u0000")) return "contains a NUL character (\\u0000), which cannot be stored";
  if (LONE_SURROGATE.test(text)) return "contains a lone UTF-16 surrogate (invalid Unicode), which cannot be stored";
  return undefined;
}

/**
 * The depth of the deepest array or object in a JSON text, without parsing it (so a hostile
 * nesting is refused before anything recursive touches it). Stops counting past `limit`.
 */
export function jsonDepthExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * Every string (and object key) in `value` that cannot be stored, with its path; and a value
 * nested deeper than MAX_JSON_DEPTH. At most `max` issues, so a hostile body cannot make a huge
 * error either.
 */
export function unsafeInputIssues(value: unknown, max = 20): Issue[] {
  const issues: Issue[] = [];
  const walk = (node: unknown, path: (string | number)[]): void => {
    if (issues.length >= max) return;
    if (typeof node === "string") {
      const reason = unsafeTextReason(node);
      if (reason) issues.push({ path: issuePath(path), message: reason });
      return;
    }
    if (node === null || typeof node !== "object") return;
    if (path.length >= MAX_JSON_DEPTH) {
      issues.push({ path: issuePath(path), message: `nested deeper than ${MAX_JSON_DEPTH} levels` });
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, [...path, index]));
      return;
    }
    // FormData and Files from server actions: their entries are what the action reads.
    if (typeof FormData !== "undefined" && node instanceof FormData) {
      for (const [key, item] of node.entries()) walk(item, [...path, key]);
      return;
    }
    if (Object.getPrototypeOf(node) !== Object.prototype && Object.getPrototypeOf(node) !== null) return;
    for (const [key, item] of Object.entries(node)) {
      const reason = unsafeTextReason(key);
      if (reason) issues.push({ path: issuePath([...path, key]), message: `key ${reason}` });
      walk(item, [...path, key]);
    }
  };
  walk(value, []);
  return issues;
}

/** PostgreSQL's `integer`: what an int column, or a value compared with one, can hold. */
export const PG_INT_MAX = 2_147_483_647;

/** A whole number an `integer` column can store (zod's `.int()` alone allows up to 2^53). */
export const pgIntSchema = z.number().int().min(-PG_INT_MAX).max(PG_INT_MAX);

/**
 * Dates that survive the trip to PostgreSQL and back: years 1 to 9999. Beyond them
 * `Date#toISOString` writes an expanded year (`+099999-01-01...`) that PostgreSQL does not read.
 */
export const MIN_DATE = new Date("0001-01-01T00:00:00.000Z");
export const MAX_DATE = new Date("9999-12-31T23:59:59.999Z");

/** A date from a query string or a body: an ISO date or date-time (or epoch ms) within PostgreSQL's range. */
export const pgDateSchema = z.coerce
  .date({ error: "not a date: give an ISO date such as 2025-01-31 or 2025-01-31T12:00:00Z" })
  .min(MIN_DATE, "dates start at year 1")
  .max(MAX_DATE, "dates end at year 9999");

/** An id of a uuid column: any 8-4-4-4-12 hex text, which is what PostgreSQL's uuid reads. */
export const uuidSchema = z.guid("not an id: expected a UUID");
