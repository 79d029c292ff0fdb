/**
 * A text detector made of pattern rules: each rule's candidates (a global regex) are judged one by
 * one (a checksum, a reserved domain, a phrase shown), up to a bound per rule and text, so a hostile
 * text cannot ask for unbounded work. pii and injection are made this way.
 */
import { CONFIDENCE_RANK, type Confidence, type Detector, type DetectorRule, type Finding } from "./types";

export interface PatternRule extends DetectorRule {
  /** Global: every candidate in the text. */
  pattern: RegExp;
  confidence: Confidence;
  /** The part of the match that is the finding (a capture group), when the pattern reads context too. */
  group?: number;
  /**
   * The finding's reason, or undefined when the candidate is not one; with a confidence of its own
   * where the candidate says how sure it is (a check digit that holds, or only the shape).
   */
  judge(value: string, at: { text: string; start: number }): string | { reason: string; confidence: Confidence; length?: number } | undefined;
}

/**
 * `oneFindingPerSpan`: where findings overlap, the most confident one stands (the first rule's on a
 * tie): an IBAN's digit groups are not also a phone number, nor a BSN nine bare digits.
 */
export function patternDetector(name: string, version: number, rules: readonly PatternRule[], maxPerRule: number, options: { oneFindingPerSpan?: boolean } = {}) {
  return {
    name,
    version,
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
          const start = rule.group ? m.index + m[0].lastIndexOf(value) : m.index;
          const judged = rule.judge(value, { text, start });
          if (judged === undefined) continue;
          // `length`: the finding is the start of the candidate (what followed it only looked like more of it).
          const { reason, confidence, length = value.length } = typeof judged === "string" ? { reason: judged, confidence: rule.confidence } : judged;
          findings.push({ detector: name, rule: rule.rule, confidence, reason, range: [start, start + length] });
        }
      }
      return options.oneFindingPerSpan ? mostConfidentPerSpan(findings) : findings;
    },
  } satisfies Detector;
}

function mostConfidentPerSpan(findings: Finding[]): Finding[] {
  if (findings.length < 2) return findings;
  // Stable: on equal confidence the earlier rule's finding (it was pushed first) comes first.
  const ranked = findings.map((f, i) => ({ f, i })).sort((a, b) => CONFIDENCE_RANK[b.f.confidence] - CONFIDENCE_RANK[a.f.confidence] || a.i - b.i);
  const kept: { f: Finding; i: number }[] = [];
  for (const candidate of ranked) {
    const [start, end] = candidate.f.range!;
    if (!kept.some(({ f }) => f.range![0] < end && start < f.range![1])) kept.push(candidate);
  }
  return kept.sort((a, b) => a.i - b.i).map(({ f }) => f);
}
