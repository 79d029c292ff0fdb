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
  version: 1,
  async: true,
  reads: "text",
  rules: SECRET_RULES,
  async detect(text) {
    if (text.length < 8) return [];
    const result = await lintSource({
      source: { filePath: "/hookplane-input.txt", content: text.replace(DIRECTIVE, (m) => "x".repeat(m.length)), ext: ".txt", contentType: "text" },
      options: { config, maskSecrets: true },
    });
    return result.messages.map(
      (message): Finding => ({
        detector: SECRETS,
        rule: message.ruleId.replace(PRESET_PREFIX, ""),
        confidence: "high",
        reason: message.message,
        range: [message.range[0], message.range[1]],
      }),
    );
  },
};
