/**
 * The link of a hash chain over an append-only table (the audit log, the hook ledger):
 *
 *   hash(row) = hex(sha256(utf8(hash(previous row) + canonicalJson(content(row)))))
 *
 * with the first row's predecessor GENESIS_HASH (or, after retention, the hash recorded in its
 * anchor). Canonical JSON is RFC 8785 (JCS, as the `canonicalize` package writes it): keys sorted, no
 * whitespace, numbers in ECMAScript form. Anyone holding an export of the rows can recompute it.
 *
 * The content is built by db/queries/hash-chain.ts from the values as stored and read back, never
 * from what the writer meant to store, so PGlite and PostgreSQL agree: timestamps as UTC ISO text
 * with microseconds, jsonb columns parsed from their text (key order does not matter after JCS).
 * Pure: no database, no Next.
 */
import { hash } from "node:crypto";

export const GENESIS_HASH = "0".repeat(64);

/**
 * RFC 8785 of a value read back from the database: strings and finite numbers as JSON.stringify
 * writes them (what JCS specifies), objects with their keys sorted, arrays in order; a member that
 * is undefined is left out and an array element that is becomes null (as JSON.stringify and the
 * `canonicalize` package do). A non-finite number (only a jsonb number beyond a double's range,
 * written by hand, can be one) hashes as null, as JSON.stringify writes it, so the sealer never
 * stalls. The same output as the `canonicalize` package for every value the database can hold
 * (lib/features/audit/offline-verifier-parity.test.ts compares them), at a fraction of its cost: it scans every string
 * for lone surrogates, which text read back from PostgreSQL cannot hold (it is valid UTF-8, and
 * jsonb refuses unpaired \u escapes), and the sealer hashes every ledger row.
 */
export function canonicalValue(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "object":
      break;
    default:
      return JSON.stringify(value) ?? "null";
  }
  const object = value as Record<string, unknown> & { toJSON?: () => unknown };
  if (typeof object.toJSON === "function") return canonicalValue(object.toJSON());
  if (Array.isArray(object)) {
    let out = "";
    for (let i = 0; i < object.length; i++) {
      const item: unknown = object[i];
      out += `${i > 0 ? "," : ""}${item === undefined || typeof item === "symbol" ? "null" : canonicalValue(item)}`;
    }
    return `[${out}]`;
  }
  return canonicalJson(object);
}

/**
 * RFC 8785 over an object: its members sorted by key (UTF-16 code units, as JCS and Array.sort
 * order them), each value by canonicalValue. The top level of a row is a flat object of column
 * values; nested jsonb values go through the same function.
 */
export function canonicalJson(content: Record<string, unknown>): string {
  let out = "";
  for (const key of Object.keys(content).sort()) {
    const value = content[key];
    if (value === undefined || typeof value === "symbol") continue; // as JSON.stringify and JCS: an absent member
    out += `${out ? "," : ""}${JSON.stringify(key)}:${canonicalValue(value)}`;
  }
  return `{${out}}`;
}

export function chainHash(previousHash: string, content: Record<string, unknown>): string {
  return chainHashOfCanonical(previousHash, canonicalJson(content));
}

/** The link over content already in canonical form (the sealer writes a row's straight from what it read). */
export function chainHashOfCanonical(previousHash: string, canonical: string): string {
  // One-shot: the same bytes as two updates (UTF-8 of a concatenation), without a Hash object per row.
  return hash("sha256", previousHash + canonical, "hex");
}
