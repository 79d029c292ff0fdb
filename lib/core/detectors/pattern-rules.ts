/**
 * A text detector made of pattern rules: each rule's candidates (a global regex) are judged one by
 * one (a checksum, a reserved domain, a phrase shown), up to a bound per rule and text, so a hostile
 * text cannot ask for unbounded work. pii and injection are made this way.
 */
import type { Confidence, Detector, DetectorRule, Finding } from "./types";

export interface PatternRule extends DetectorRule {
  /** Global: every candidate in the text. */
  pattern: RegExp;
  confidence: Confidence;
  /** The part of the match that is the finding (a capture group), when the pattern reads context too. */
  group?: number;
  /** The finding's reason, or undefined when the candidate is not one. */
  judge(value: string): string | undefined;
}

export function patternDetector(name: string, rules: readonly PatternRule[], maxPerRule: number) {
  return {
    name,
    version: 1,
    async: false,
    reads: "text" as const,
    rules: rules.map(({ rule, finds }) => ({ rule, finds })),
    detect(text: string): Finding[] {
      const findings: Finding[] = [];
      for (const rule of rules) {
        rule.pattern.lastIndex = 0;
        let candidates = 0;
        for (let m = rule.pattern.exec(text); m !== null && candidates < maxPerRule; m = rule.pattern.exec(text), candidates++) {
          if (m[0].length === 0) {
            rule.pattern.lastIndex++;
            continue;
          }
          const value = rule.group ? m[rule.group] : m[0];
          const reason = rule.judge(value);
          if (reason === undefined) continue;
          const start = rule.group ? m.index + m[0].lastIndexOf(value) : m.index;
          findings.push({ detector: name, rule: rule.rule, confidence: rule.confidence, reason, range: [start, start + value.length] });
        }
      }
      return findings;
    },
  } satisfies Detector;
}
