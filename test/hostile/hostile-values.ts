/**
 * What an attacker sends, as fast-check arbitraries: text the database cannot store, numbers and
 * dates past every range, wrong types, deep and huge JSON, forged cursors, traversal and SQL in
 * ids; and, from a route's own zod schema and a valid example body, requests that are valid but
 * for one hostile value at one field.
 */
import fc from "fast-check";
import type { z } from "zod";
import { encodeCursor } from "@/lib/platform/api/cursor";

/** A placeholder that becomes a bare JSON literal JSON.stringify cannot write (`1e400`, `-0`...). */
const RAW = "\u0001raw:";
export const raw = (literal: string) => `${RAW}${literal}`;

/** JSON text of `value`, with raw(...) placeholders written as bare literals. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(new RegExp(`"${RAW}([^"]*)"`, "g"), "$1");
}

export const HOSTILE_TEXT = [
  "\u0000",
  "tool\u0000name",
  "\uD800",
  "lone \uDC00 low",
  "end\uDBFF",
  "../../../../etc/passwd",
  "..\\..\\windows\\win.ini",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "' OR 1=1 --",
  "'; drop table agents; --",
  '" or ""="',
  "1)) or pg_sleep(5)--",
  "${jndi:ldap://x/a}",
  "{{constructor.constructor('return process')()}}",
  "<script>alert(1)</script>",
  "=cmd|' /C calc'!A0",
  "__proto__",
  "constructor",
  "\u202Eevil",
  "🙂",
  "",
  " ",
  "null",
  "NaN",
  "Infinity",
  "-1",
  "1e309",
  "99999-01-01",
  "-000001-01-01",
  "0000-00-00",
  "275760-09-13T00:00:00Z",
  "2025-13-45",
  "not-a-uuid",
  "00000000-0000-0000-0000-000000000000",
  "ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ",
  "a".repeat(5000),
] as const;

/** Hostile text, and random text with a NUL or a lone surrogate somewhere in it. */
export const hostileText = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom("\u0000", "a\u0000b", "\uD800", "x\uDFFFy") },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 20 }), fc.constantFrom("\u0000", "\uD83D", "\uDE00", "\uFFFF"), fc.string({ maxLength: 20 }))
      .map(([a, bad, b]) => `${a}${bad}${b}`),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 40, unit: "binary" }) },
);

export const hostileNumber = fc.constantFrom(
  raw("1e400"),
  raw("-1e400"),
  raw("-0"),
  -1,
  0,
  1.5,
  2 ** 31,
  2 ** 31 - 1,
  -(2 ** 31) - 1,
  2 ** 53 + 2,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  raw("123456789012345678901234567890"),
);

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** Wrong types and shapes: what a field of any type may receive instead. */
export const hostileShape = fc.constantFrom<unknown>(
  null,
  true,
  [],
  {},
  [null],
  { $gt: "" },
  { __proto__: { admin: true } },
  nested(80),
  Array.from({ length: 2000 }, (_, i) => i),
  Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i])),
);

export const hostileValue = fc.oneof(
  { weight: 4, arbitrary: hostileText as fc.Arbitrary<unknown> },
  { weight: 2, arbitrary: hostileNumber as fc.Arbitrary<unknown> },
  { weight: 2, arbitrary: hostileShape },
);

/** Cursors no list ever returned: garbage, wrong shapes, and right shapes with hostile values. */
export const forgedCursor = fc.oneof(
  fc.constantFrom("garbage", "%%%", "", "a".repeat(3000), "eyJ", "bnVsbA", "W10"),
  fc.jsonValue({ maxDepth: 3 }).map((v) => encodeCursor(v)),
  fc.tuple(hostileText, hostileText).map(([a, b]) => encodeCursor({ createdAt: a, id: b })),
  fc.tuple(hostileText, hostileText).map(([a, b]) => encodeCursor({ at: a, id: b })),
  hostileNumber.map((n) => Buffer.from(toJsonText({ id: n })).toString("base64url")),
  hostileText.map((s) => encodeCursor(s)),
  fc.tuple(hostileNumber, hostileText, hostileNumber, hostileText).map((key) => Buffer.from(toJsonText(key)).toString("base64url")),
  fc.constant(encodeCursor({ createdAt: "99999-01-01T00:00:00.000Z", id: "00000000-0000-4000-8000-000000000000" })),
  fc.constant(encodeCursor({ createdAt: "2025-01-01T00:00:00Z", id: "x' or 1=1 --" })),
  fc.constant(encodeCursor({ id: 1e300 })),
);

/** A query string value: text only (a query has no other type). */
export function hostileQueryValue(key: string): fc.Arbitrary<string> {
  if (key === "cursor") return forgedCursor;
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom("\u0000", "x\u0000", "99999-01-01", "-000001-01-01", "2147483648", "9007199254740993", "1e309") },
    { weight: 2, arbitrary: hostileText.filter((s) => !/[\uD800-\uDFFF]/.test(s)) },
    { weight: 1, arbitrary: fc.constantFrom("-1", "true ", "%00", "[]", "{}", "0", "") },
  );
}

/** Ids for a path segment: traversal, SQL, NUL, not-uuids, and uuids that name nothing. */
export const hostileId = fc.oneof(
  fc.constantFrom(
    "not-a-uuid",
    "../../../../etc/passwd",
    "..",
    "%2e%2e",
    "' OR 1=1 --",
    "1; drop table runs",
    "\u0000",
    "a\u0000b",
    "00000000-0000-4000-8000-000000000000",
    "FFFFFFFF-FFFF-4FFF-8FFF-FFFFFFFFFFFF",
    "00000000-0000-0000-0000-00000000000g",
    "{00000000-0000-4000-8000-000000000000}",
    "a".repeat(3000),
    "__proto__",
    "🙂",
    "\uD800",
  ),
  fc.string({ maxLength: 60 }),
);

/**
 * A path segment as it goes on the wire (percent-encoded) whose encoding does not decode: a lone
 * or truncated `%`, non-hex digits, bytes that are not UTF-8 (a lone continuation, an overlong
 * `/`, a truncated sequence, a surrogate, past U+10FFFF). Next's router threw on these (issue 30).
 */
export const MALFORMED_PERCENT_ENCODINGS = ["%", "%zz", "%FF%FE", "%ED%A0%80", "%C0%AF", "%E2%82", "%80", "%F4%90%80%80", "abc%", "%%41", "%u0041", "%2"] as const;

/** Path segments on the wire that do decode, to what no id or name should be: NUL, traversal, SQL, a long one. */
export const HOSTILE_PATH_SEGMENTS = [
  "%00",
  "a%00b",
  "%2500",
  "%2e%2e",
  "..%2f..%2fetc%2fpasswd",
  "%5c..%5c",
  "%27%20OR%201%3D1%20--",
  "%0d%0aSet-Cookie:%20x=1",
  "%F0%9F%92%A9",
  "%EF%BF%BF",
  "not-a-uuid",
  "00000000-0000-4000-8000-000000000000",
  "a".repeat(400),
] as const;

/** The keys of an object schema (through optional, default, pipe and union wrappers). */
export function schemaKeys(schema: z.ZodType | undefined, depth = 0): string[] {
  if (!schema || depth > 8) return [];
  const def = (schema as unknown as { def: Record<string, unknown> }).def;
  if (def.type === "object") return Object.keys((schema as unknown as { shape: Record<string, unknown> }).shape);
  if (def.innerType) return schemaKeys(def.innerType as z.ZodType, depth + 1);
  if (def.type === "pipe") return schemaKeys(def.in as z.ZodType, depth + 1);
  if (def.type === "union") return [...new Set((def.options as z.ZodType[]).flatMap((o) => schemaKeys(o, depth + 1)))];
  return [];
}

/** Every path to a leaf (or an empty container) of a JSON value. */
export function leafPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.length ? value.flatMap((v, i) => leafPaths(v, [...prefix, i])) : [prefix];
  if (value && typeof value === "object") {
    const entries = Object.entries(value);
    return entries.length ? entries.flatMap(([k, v]) => leafPaths(v, [...prefix, k])) : [prefix];
  }
  return [prefix];
}

/** `base` with the value at `path` replaced (a copy). */
export function withValueAt(base: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const copy = (Array.isArray(base) ? [...base] : { ...(base as object) }) as Record<string | number, unknown>;
  copy[head] = withValueAt(copy[head], rest, value);
  return copy;
}

/** A valid example body with one field (a leaf of the example, or a key of the schema) made hostile. */
export function mutatedBody(schema: z.ZodType | undefined, example: unknown): fc.Arbitrary<{ path: string; body: unknown }> {
  const paths = [...leafPaths(example ?? {}), ...schemaKeys(schema).map((k) => [k])].filter((p) => p.length > 0);
  const unique = [...new Map(paths.map((p) => [JSON.stringify(p), p])).values()];
  const pathArb: fc.Arbitrary<(string | number)[]> = unique.length ? fc.constantFrom(...unique) : fc.constant(["field"]);
  return fc.tuple(pathArb, hostileValue).map(([path, value]) => ({ path: path.join("."), body: withValueAt(example ?? {}, path, value) }));
}

/** Whole bodies no JSON route can take. */
export const hostileRawBody = fc.oneof(
  fc.constantFrom(
    "{",
    '{"name":',
    "[1,2",
    "nul",
    "\u0000",
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"__proto__":{"role":"admin"}}',
    "null",
    "[]",
    "42",
    '"text"',
    "true",
    "a=b&c=d",
    "--boundary\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\ny\r\n--boundary--",
  ),
  fc.constant("[".repeat(10_000) + "]".repeat(10_000)),
  fc.constant('{"a":'.repeat(10_000) + "1" + "}".repeat(10_000)),
  fc.constant(JSON.stringify({ pad: "x".repeat(1024 * 1024 + 10) })),
  fc.string({ maxLength: 200, unit: "binary" }),
);

export const hostileContentType = fc.constantFrom(
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=boundary",
  "application/json; charset=utf-16",
  "application/xml",
);
