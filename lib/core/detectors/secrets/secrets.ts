/**
 * `secrets`: credentials in what a call carries (a tool's input, its output, a prompt), found by two
 * well-kept rule sets, not by patterns written here: secretlint's recommended preset
 * (@secretlint/secretlint-rule-preset-recommend: cloud keys, the common SaaS and AI providers'
 * tokens, private keys, basic auth and database connection strings) and gitleaks' rules (221
 * providers' token formats, JWTs, and keys and passwords by their context and entropy:
 * gitleaks/gitleaks-scan.ts). Each finding says which rule and where (its range), with the secret
 * masked, so a ledger row can carry the reason and a redaction can replace exactly that text.
 */
import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import type { Detector, Finding } from "../types";
import { GITLEAKS_RULES, scanGitleaks, type GitleaksFinding } from "./gitleaks/gitleaks-scan";

export const SECRETS = "secrets";

/**
 * secretlint's core marks each lint's steps on the process's performance timeline, and its
 * profiler keeps every mark it observes and measures each against all it kept: after a few
 * thousand calls the marks held memory and a batch of its measures blocked the event loop for
 * minutes (6,000 calls: 6 minutes). Hookplane does not read that profile, so nothing is marked,
 * and what the profiler kept of other code's marks is let go after each call.
 */
secretLintProfiler.mark = () => {};
const profilerKept = secretLintProfiler as unknown as { entries: unknown[]; measures: unknown[] };
function forgetProfile() {
  profilerKept.entries.length = 0;
  profilerKept.measures.length = 0;
}

const PRESET_PREFIX = "@secretlint/secretlint-rule-";
const config = { rules: [{ id: recommended.meta.id, rule: recommended }] };

/**
 * secretlint honours `secretlint-disable` comments in what it reads: in a tool's output they are
 * the content's words, not the operator's, so they are blanked (same length: ranges still hold).
 */
const DIRECTIVE = /secretlint-(disable|enable)(-line|-next-line)?/g;

/** The preset's rules by their short name (`aws`, `github`, …), minus its comment filter. */
export const SECRETLINT_RULES = recommended.rules
  .map((rule) => rule.meta.id.replace(PRESET_PREFIX, ""))
  .filter((id) => id !== "filter-comments")
  .map((rule) => ({ rule, finds: `secretlint's ${rule} rule (${PRESET_PREFIX}${rule})` }));

/** secretlint's names are single words (`aws`), gitleaks' hyphenated (`aws-access-token`): none is both. */
export const SECRET_RULES = [...SECRETLINT_RULES, ...GITLEAKS_RULES.map(({ rule, finds }) => ({ rule, finds: `gitleaks' ${rule} rule: ${finds}` }))];

export const secrets: Detector = {
  name: SECRETS,
  // 2: a finding's range is the secret itself, not the range a rule reported (secretRange).
  // 3: gitleaks' rules beside secretlint's.
  version: 3,
  async: true,
  reads: "text",
  rules: SECRET_RULES,
  async detect(text) {
    if (text.length < 8) return [];
    // Unmasked, so the range can be checked against the secret itself (secretRange); masked below as secretlint masks.
    const result = await lintSource({
      source: { filePath: "/hookplane-input.txt", content: text.replace(DIRECTIVE, (m) => "x".repeat(m.length)), ext: ".txt", contentType: "text" },
      options: { config, maskSecrets: false },
    });
    forgetProfile();
    const fromSecretlint = result.messages.map((message): Finding => {
      const values = dataValues(message.data);
      return {
        detector: SECRETS,
        rule: message.ruleId.replace(PRESET_PREFIX, ""),
        confidence: "high",
        reason: values.reduce((reason, value) => reason.replaceAll(value, "*".repeat(value.length)), message.message),
        range: secretRange(text, [message.range[0], message.range[1]], values),
      };
    });
    return [...fromSecretlint, ...withoutRepeats(scanGitleaks(text), fromSecretlint).map(gitleaksFinding)];
  },
};

/** A secret's first characters (a token's public prefix, `sk_live`, `ghp_`) and its length; never more. */
export function maskSecret(secret: string): string {
  return secret.length >= 16 ? `${secret.slice(0, 4)}… (${secret.length} characters)` : `${"*".repeat(secret.length)}`;
}

function gitleaksFinding(f: GitleaksFinding): Finding {
  return { detector: SECRETS, rule: f.rule, confidence: f.confidence, reason: `${f.what}: ${maskSecret(f.secret)}`, range: f.range };
}

/**
 * gitleaks' findings that say nothing new: inside a secret secretlint found, or a generic one
 * (`generic-api-key`) on a secret a provider's own rule found (gitleaks' own report drops those).
 */
function withoutRepeats(found: GitleaksFinding[], fromSecretlint: Finding[]): GitleaksFinding[] {
  const within = (inner: [number, number], outer: [number, number]) => inner[0] >= outer[0] && inner[1] <= outer[1];
  const overlaps = (a: [number, number], b: [number, number]) => a[0] < b[1] && b[0] < a[1];
  return found.filter(
    (f) =>
      !fromSecretlint.some((s) => s.range && within(f.range, s.range)) &&
      !(f.confidence === "medium" && (found.some((o) => o !== f && o.confidence === "high" && overlaps(o.range, f.range)) || fromSecretlint.some((s) => s.range && overlaps(s.range, f.range)))),
  );
}

/** The strings of a message's data (secretlint reports the secret there), as its maskSecrets collects them. */
function dataValues(data: unknown): string[] {
  if (typeof data === "string") return data === "" ? [] : [data];
  if (typeof data !== "object" || data === null) return [];
  return Object.values(data).flatMap(dataValues);
}

/** A secret shorter than this is not looked for in the text: it could be any word. */
const MIN_SECRET = 8;

/**
 * The range of the secret itself. A rule may report a range that does not cover it: secretlint's
 * aws rule reports an AWS_SECRET_ACCESS_KEY line from the start of `AWS_SECRET_ACCESS_KEY=`, as
 * long as the key, so a redaction of that range left most of the key in place. The secret the
 * message names, found from the range's start and starting within it, is what is replaced.
 */
function secretRange(text: string, reported: [number, number], values: string[]): [number, number] {
  let range: [number, number] | undefined;
  for (const value of values) {
    if (value.length < MIN_SECRET) continue;
    const at = text.indexOf(value, reported[0]);
    if (at < 0 || at > reported[1]) continue;
    range = range ? [Math.min(range[0], at), Math.max(range[1], at + value.length)] : [at, at + value.length];
  }
  return range ?? reported;
}
