"use strict";
/**
 * RFC 8785 (JSON Canonicalization Scheme) over values read from JSON, and the hash chain's link,
 * for checking a bundle with node alone. The server's definitions are lib/core/audit/chain-hash.ts;
 * lib/features/audit/offline-verifier-parity.test.ts checks both give the same text on the values a
 * row can hold, and the same as the `canonicalize` package.
 *
 * For values that came out of JSON.parse, JCS is: object members sorted by their keys' UTF-16 code
 * units (what Array.prototype.sort does to strings), no whitespace, strings and numbers as
 * ECMAScript's JSON.stringify writes them (shortest round-trip form, `1e+21`, `-0` as `0`). A
 * non-finite number (only from a hand-written jsonb value beyond a double's range) is `null`, as
 * the sealer hashed it.
 */
const { createHash } = require("node:crypto");

const GENESIS_HASH = "0".repeat(64);

function canonicalJson(value) {
  if (value === null) return "null";
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
  if (typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  let out = "";
  for (const key of Object.keys(value).sort()) {
    if (value[key] === undefined) continue;
    out += `${out ? "," : ""}${JSON.stringify(key)}:${canonicalJson(value[key])}`;
  }
  return `{${out}}`;
}

/** hex(sha256(previous hash + canonical JSON of the row's content)). */
function chainHash(previousHash, content) {
  return createHash("sha256").update(previousHash).update(canonicalJson(content)).digest("hex");
}

module.exports = { GENESIS_HASH, canonicalJson, chainHash };
