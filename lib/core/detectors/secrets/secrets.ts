/**
 * `secrets`: credentials in what a call carries (a tool's input, its output, a prompt), found by
 * secretlint's recommended preset (@secretlint/secretlint-rule-preset-recommend: cloud keys, the
 * common SaaS and AI providers' tokens, private keys, basic auth and database connection strings),
 * not by patterns written here. Each finding says which rule and where (its range), with the secret
 * masked, so a ledger row can carry the reason and a redaction can replace exactly that text.
 */
import { lintSource } from "@secretlint/core";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import type { Detector, Finding } from "../types";

export const SECRETS = "secrets";

const PRESET_PREFIX = "@secretlint/secretlint-rule-";
const config = { rules: [{ id: recommended.meta.id, rule: recommended }] };

/**
 * secretlint honours `secretlint-disable` comments in what it reads: in a tool's output they are
 * the content's words, not the operator's, so they are blanked (same length: ranges still hold).
 */
const DIRECTIVE = /secretlint-(disable|enable)(-line|-next-line)?/g;

/** The preset's rules by their short name (`aws`, `github`, …), minus its comment filter. */
export const SECRET_RULES = recommended.rules
  .map((rule) => rule.meta.id.replace(PRESET_PREFIX, ""))
  .filter((id) => id !== "filter-comments")
  .map((rule) => ({ rule, finds: `secretlint's ${rule} rule (${PRESET_PREFIX}${rule})` }));

export const secrets: Detector = {
  name: SECRETS,
  // 2: a finding's range is the secret itself, not the range a rule reported (secretRange).
  version: 2,
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
    return result.messages.map((message): Finding => {
      const values = dataValues(message.data);
      return {
        detector: SECRETS,
        rule: message.ruleId.replace(PRESET_PREFIX, ""),
        confidence: "high",
        reason: values.reduce((reason, value) => reason.replaceAll(value, "*".repeat(value.length)), message.message),
        range: secretRange(text, [message.range[0], message.range[1]], values),
      };
    });
  },
};

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
