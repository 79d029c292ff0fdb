/**
 * How a change to a tool call is written into the ledger: values as they were, unless they are too
 * big for a ledger row (then their hash and size), and a redacted original only as its hash, so
 * the ledger never holds the secret the redaction hid.
 */
import { createHash } from "node:crypto";
import { LEDGER_TEXT_CAP } from "./ledger";

export function sha256Of(value: unknown): string {
  return createHash("sha256").update(typeof value === "string" ? value : (JSON.stringify(value) ?? "")).digest("hex");
}

/** The value itself, or `{sha256, bytes}` when its JSON is over the ledger's cap. */
export function ledgerValue(value: unknown): unknown {
  const json = JSON.stringify(value) ?? "null";
  if (json.length <= LEDGER_TEXT_CAP) return value;
  return hashedValue(value, json);
}

/** Only `{sha256, bytes}` of a value the ledger must not hold (it may carry what a redaction hid). */
export function hashedValue(value: unknown, json = JSON.stringify(value) ?? "null"): { sha256: string; bytes: number } {
  return { sha256: sha256Of(value), bytes: Buffer.byteLength(json, "utf8") };
}
