/**
 * The link of a hash chain over an append-only table (the audit log, the hook ledger):
 *
 *   hash(row) = hex(sha256(utf8(hash(previous row) + canonicalJson(content(row)))))
 *
 * with the first row's predecessor GENESIS_HASH (or, after retention, the hash recorded in its
 * anchor). Canonical JSON is RFC 8785 (JCS, the `canonicalize` package): keys sorted, no
 * whitespace, numbers in ECMAScript form. Anyone holding an export of the rows can recompute it.
 *
 * The content is built by db/queries/hash-chain.ts from the values as stored and read back, never
 * from what the writer meant to store, so PGlite and PostgreSQL agree: timestamps as UTC ISO text
 * with microseconds, jsonb columns parsed from their text (key order does not matter after JCS).
 * Pure: no database, no Next.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

export const GENESIS_HASH = "0".repeat(64);

/**
 * JCS refuses non-finite numbers; the only way one reaches us is a jsonb number beyond a double's
 * range written by hand. It hashes as null (what JSON.stringify writes), so the sealer never stalls.
 */
function finite(value: unknown): unknown {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map(finite);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, finite(v)]));
  }
  return value;
}

export function canonicalJson(content: Record<string, unknown>): string {
  return canonicalize(finite(content)) ?? "null";
}

export function chainHash(previousHash: string, content: Record<string, unknown>): string {
  return createHash("sha256").update(previousHash).update(canonicalJson(content)).digest("hex");
}
