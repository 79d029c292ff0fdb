import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSecretBox } from "@/lib/platform/security/secret-box";
import { confirmationMatches, confirmationToken, DECISION_LINK_MAX_LIFETIME_MS, linkExpiry, mintDecisionToken, readDecisionToken, toolInputHash } from "./decision-links";
import { slackSignature, verifySlackSignature } from "./slack-interactions";
import { decisionRefusal } from "./approvers";

const key = createSecretBox(randomBytes(32)).derive("decision-links/v1");
const claims = {
  approvalId: "7d7c2f7e-0000-4000-8000-000000000001",
  runId: "7d7c2f7e-0000-4000-8000-000000000002",
  decision: "approve" as const,
  recipient: "slack:#ops",
  inputHash: toolInputHash({ command: "ls", cwd: "/w" }),
  expiresAt: 1_900_000_000,
};

describe("decision link tokens", () => {
  it("round-trip, and name the approval, run, decision, recipient and input", () => {
    const token = mintDecisionToken(claims, key);
    expect(readDecisionToken(token, key)).toEqual({ ok: true, claims });
    // Key order of the input does not change its hash.
    expect(toolInputHash({ cwd: "/w", command: "ls" })).toBe(claims.inputHash);
  });

  it("a changed payload or signature, or another key, is forged; garbage is malformed", () => {
    const token = mintDecisionToken(claims, key);
    const [payload, signature] = token.split(".");
    const other = Buffer.from(Buffer.from(payload, "base64url").toString().replace("slack:#ops", "slack:#all")).toString("base64url");
    expect(readDecisionToken(`${other}.${signature}`, key)).toEqual({ ok: false, problem: "forged" });
    expect(readDecisionToken(`${payload}.${signature.slice(0, -2)}AA`, key)).toEqual({ ok: false, problem: "forged" });
    expect(readDecisionToken(token, createSecretBox(randomBytes(32)).derive("decision-links/v1"))).toEqual({ ok: false, problem: "forged" });
    for (const garbage of ["", "abc", "a.b.c", `${"x".repeat(3000)}.y`]) expect(readDecisionToken(garbage, key)).toMatchObject({ ok: false, problem: "malformed" });
  });

  it("expire with the approval, and within a week when it waits forever", () => {
    const requestedAt = new Date("2026-01-01T00:00:00Z");
    expect(linkExpiry({ requestedAt, expiresAt: new Date("2026-01-01T00:30:00Z") })).toBe(Date.parse("2026-01-01T00:30:00Z") / 1000);
    expect(linkExpiry({ requestedAt, expiresAt: null })).toBe((requestedAt.getTime() + DECISION_LINK_MAX_LIFETIME_MS) / 1000);
  });

  it("the confirmation token is bound to its link", () => {
    const token = mintDecisionToken(claims, key);
    const confirm = confirmationToken(token, key);
    expect(confirmationMatches(token, confirm, key)).toBe(true);
    expect(confirmationMatches(mintDecisionToken({ ...claims, decision: "deny" }, key), confirm, key)).toBe(false);
    expect(confirmationMatches(token, "", key)).toBe(false);
  });
});

describe("Slack request signatures", () => {
  const now = 1_700_000_000_000;
  const body = "payload=%7B%7D";
  const signature = slackSignature("s3cret", "1700000000", body);
  it("accepts Slack's v0 HMAC within five minutes", () => {
    expect(verifySlackSignature({ signingSecret: "s3cret", timestamp: "1700000000", signature, rawBody: body, nowMs: now + 299_000 })).toBe("ok");
  });
  it("refuses stale, forged and missing", () => {
    expect(verifySlackSignature({ signingSecret: "s3cret", timestamp: "1700000000", signature, rawBody: body, nowMs: now + 301_000 })).toBe("stale");
    expect(verifySlackSignature({ signingSecret: "s3cret", timestamp: "1700000000", signature, rawBody: `${body}x`, nowMs: now })).toBe("forged");
    expect(verifySlackSignature({ signingSecret: "other", timestamp: "1700000000", signature, rawBody: body, nowMs: now })).toBe("forged");
    expect(verifySlackSignature({ signingSecret: "s3cret", timestamp: null, signature, rawBody: body, nowMs: now })).toBe("missing");
    expect(verifySlackSignature({ signingSecret: "s3cret", timestamp: "soon", signature, rawBody: body, nowMs: now })).toBe("stale");
  });
});

describe("who may decide", () => {
  it("approvers by email, username or role; without them an operator, or whoever holds a link", () => {
    const groups = { users: ["alice", "bob@example.com"], roles: ["admin" as const] };
    expect(decisionRefusal(groups, { email: "alice@corp.example", role: "viewer" }, "operator")).toBeUndefined();
    expect(decisionRefusal(groups, { email: "bob@example.com" }, "link")).toBeUndefined();
    expect(decisionRefusal(groups, { email: "eve@example.com", role: "admin" }, "operator")).toBeUndefined();
    expect(decisionRefusal(groups, { email: "eve@example.com", role: "operator" }, "operator")).toBe("Only alice, bob@example.com or any admin may decide this approval");
    expect(decisionRefusal(groups, {}, "link")).toBe("Only alice, bob@example.com or any admin may decide this approval");
    expect(decisionRefusal(null, { role: "viewer" }, "operator")).toBe("Deciding an approval needs the operator role; you are viewer");
    expect(decisionRefusal(null, { role: "operator" }, "operator")).toBeUndefined();
    expect(decisionRefusal(null, {}, "link")).toBeUndefined();
  });
});
