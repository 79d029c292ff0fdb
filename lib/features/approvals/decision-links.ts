/**
 * Decision links: `<public URL>/decide/<token>`, one for approve and one for deny, per approval and
 * per recipient. The token names the approval, its run, the decision, who it was sent to and a
 * hash of the tool input, and when it expires (with the approval, and at most a week after it was
 * asked: an approval that waits forever still gets links that do not). It is signed with
 * HMAC-SHA256 under a key derived from the instance secret key (the one that seals secrets), and
 * checked in constant time. A link is single-use because an approval is decided once: the second
 * use finds it settled (409).
 *
 * Opening a link only shows the confirmation page; the decision is its form's POST, which carries
 * the link and a confirmation token bound to it (an HMAC of the link under the same key).
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { canonicalInput } from "@/lib/core/hooks/executors/allow";
import { getSecretBox } from "@/lib/platform/security/instance-secret-box";

export type LinkDecision = "approve" | "deny";

export interface DecisionLinkClaims {
  approvalId: string;
  runId: string;
  decision: LinkDecision;
  /** Who the link was sent to: `slack:#ops`, `discord:<channel>`, `webhook:<host>`, `user:<email>`. */
  recipient: string;
  /** sha256 of the canonical tool input, base64url, first 22 characters. */
  inputHash: string;
  /** Epoch seconds. */
  expiresAt: number;
}

/** An approval that waits forever (`onTimeout: wait`) still gets links that expire. */
export const DECISION_LINK_MAX_LIFETIME_MS = 7 * 24 * 3600 * 1000;
const VERSION = "1";
const MAX_TOKEN_LENGTH = 2_000;

function linkKey(): Buffer {
  return getSecretBox().derive("decision-links/v1");
}

function sign(key: Buffer, text: string): Buffer {
  return createHmac("sha256", key).update(text).digest();
}

export function toolInputHash(toolInput: unknown): string {
  return createHash("sha256").update(canonicalInput(toolInput)).digest("base64url").slice(0, 22);
}

/** When links of an approval stop working: with the approval, and within the maximum lifetime. */
export function linkExpiry(approval: { requestedAt: Date; expiresAt: Date | null }): number {
  const cap = approval.requestedAt.getTime() + DECISION_LINK_MAX_LIFETIME_MS;
  return Math.floor(Math.min(approval.expiresAt?.getTime() ?? cap, cap) / 1000);
}

export function mintDecisionToken(claims: DecisionLinkClaims, key = linkKey()): string {
  const payload = Buffer.from(
    JSON.stringify([VERSION, claims.approvalId, claims.runId, claims.decision === "approve" ? "a" : "d", claims.recipient, claims.inputHash, claims.expiresAt]),
  ).toString("base64url");
  return `${payload}.${sign(key, payload).toString("base64url")}`;
}

export type TokenReading = { ok: true; claims: DecisionLinkClaims } | { ok: false; problem: "malformed" | "forged" };

/** Reads and verifies a token; says nothing of the approval itself (the caller looks it up). */
export function readDecisionToken(token: string, key = linkKey()): TokenReading {
  if (token.length > MAX_TOKEN_LENGTH) return { ok: false, problem: "malformed" };
  const dot = token.indexOf(".");
  if (dot <= 0 || dot !== token.lastIndexOf(".")) return { ok: false, problem: "malformed" };
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), "base64url");
  const expected = sign(key, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, problem: "forged" };
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return { ok: false, problem: "malformed" };
  }
  if (!Array.isArray(fields) || fields.length !== 7 || fields[0] !== VERSION) return { ok: false, problem: "malformed" };
  const [, approvalId, runId, decision, recipient, inputHash, expiresAt] = fields as unknown[];
  if (
    typeof approvalId !== "string" ||
    typeof runId !== "string" ||
    (decision !== "a" && decision !== "d") ||
    typeof recipient !== "string" ||
    typeof inputHash !== "string" ||
    typeof expiresAt !== "number"
  ) {
    return { ok: false, problem: "malformed" };
  }
  return { ok: true, claims: { approvalId, runId, decision: decision === "a" ? "approve" : "deny", recipient, inputHash, expiresAt } };
}

/** The confirmation form's token: only someone who opened the page (and so holds the link) has it. */
export function confirmationToken(token: string, key = linkKey()): string {
  return sign(key, `confirm:${token}`).toString("base64url");
}

export function confirmationMatches(token: string, given: string, key = linkKey()): boolean {
  const expected = Buffer.from(confirmationToken(token, key), "base64url");
  const actual = Buffer.from(given, "base64url");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export function decisionLinkUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/decide/${token}`;
}
