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

function canonicalValue(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value === "number" && !Number.isFinite(value) ? "null" : JSON.stringify(value);
  try {
    return canonicalize(value) ?? "null";
  } catch {
    return canonicalize(finite(value)) ?? "null";
  }
}

/**
 * RFC 8785 over a row: the top level is a flat object of column values, serialized here (sorted
 * keys; strings and numbers by JSON.stringify, which is what JCS specifies), and only nested jsonb
 * values go through the library. Same output as canonicalize(row), at a third of its cost on the
 * sealer's hot loop: canonicalize scans every string for lone surrogates, which text read back
 * from PostgreSQL cannot hold (it is valid UTF-8, and jsonb refuses unpaired \u escapes).
 */
export function canonicalJson(content: Record<string, unknown>): string {
  let out = "";
  for (const key of Object.keys(content).sort()) {
    if (content[key] === undefined) continue; // as JSON.stringify and JCS: an absent member
    out += `${out ? "," : ""}${JSON.stringify(key)}:${canonicalValue(content[key])}`;
  }
  return `{${out}}`;
}

export function chainHash(previousHash: string, content: Record<string, unknown>): string {
  return createHash("sha256").update(previousHash).update(canonicalJson(content)).digest("hex");
}
