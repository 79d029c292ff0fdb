/**
 * gitleaks' rules (gitleaks-rules.json, vendored from its config/gitleaks.toml by
 * scripts/vendor-gitleaks.ts) applied as gitleaks applies them (its detect.go, detectRule): a rule
 * runs only where one of its keywords occurs; its secret is the rule's secret group, or the first
 * group that matched; a secret whose Shannon entropy is not above the rule's is none; the global
 * and the rule's allowlists (regexes on the secret, the match or the line; stopwords in the secret;
 * all of an allowlist's checks with condition AND) let a match go. Not applied: path conditions (a
 * tool's output has no path) and `gitleaks:allow` comments (the content's words, not the
 * operator's: see secrets.ts on secretlint's).
 *
 * Where gitleaks runs a rule over the whole file, this runs it over windows around its keywords'
 * occurrences (the line around each, 128 characters before it and 512 after; 8 kB either side for the
 * rules that read several lines, such as a private key's block), merged where they overlap: a
 * rule's cost follows how often its keywords occur, not how long the text is.
 */
import type { Confidence } from "../../types";
import data from "./gitleaks-rules.json";
import { keywordAutomaton } from "./keyword-automaton";

interface PatternJson {
  source: string;
  flags: string;
}
interface AllowlistJson {
  condition: string;
  target: string;
  regexes: PatternJson[];
  stopwords: string[];
}
interface RuleJson {
  id: string;
  description: string;
  regex: PatternJson;
  secretGroup?: number;
  entropy?: number;
  keywords: string[];
  allowlists: AllowlistJson[];
}
const RULES = (data as { rules: RuleJson[] }).rules;
const GLOBAL = (data as { allowlist: { regexes: PatternJson[]; stopwords: string[] } }).allowlist;

export const GITLEAKS_SOURCE = (data as { source: string }).source;

export interface GitleaksFinding {
  rule: string;
  /** The rule's description up to its first comma: "Found a Stripe Access Token". */
  what: string;
  secret: string;
  range: [number, number];
  confidence: Confidence;
}

/** A rule's keyword is at most some 50 characters into its match (an identifier before it), the secret within a few hundred after. */
const BEFORE = 128;
const AFTER = 512;
/** The rules that read several lines (a private key's block, a Kubernetes secret's YAML). */
const MULTILINE = 8192;
/** How far a window grows to take in the rest of a long token. */
const MAX_TOKEN = 16_384;
/** Occurrences of one keyword looked at in one text: the bound on a hostile text's work. */
const MAX_HITS_PER_KEYWORD = 500;

const compile = ({ source, flags }: PatternJson) => new RegExp(source, flags.includes("g") ? flags : `${flags}g`);
const anyOf = (patterns: PatternJson[]) => (patterns.length === 0 ? undefined : patterns.map((p) => new RegExp(p.source, p.flags.replace("g", ""))));

interface Rule {
  id: string;
  what: string;
  regex: RegExp;
  secretGroup: number;
  entropy: number;
  before: number;
  after: number;
  allowlists: { and: boolean; target: string; regexes?: RegExp[]; stopwords: string[] }[];
  /** Generic rules (`generic-api-key`) are less sure than a provider's own token format. */
  confidence: Confidence;
}

const rules: Rule[] = RULES.map((r) => ({
  id: r.id,
  what: r.description.split(/,|\. /)[0].replace(/\.$/, ""),
  regex: compile(r.regex),
  secretGroup: r.secretGroup ?? 0,
  entropy: r.entropy ?? 0,
  ...(/\\s\\S|\\n|\(\?s|\\r/.test(r.regex.source) ? { before: MULTILINE, after: MULTILINE } : { before: BEFORE, after: AFTER }),
  allowlists: r.allowlists.map((a) => ({ and: a.condition === "AND", target: a.target, regexes: anyOf(a.regexes), stopwords: a.stopwords })),
  confidence: r.id.startsWith("generic") ? "medium" : "high",
}));
const globalRegexes = anyOf(GLOBAL.regexes) ?? [];

const keywords: string[] = [];
/** The rules of each keyword (by its index in `keywords`). */
const rulesOfKeyword: number[][] = [];
RULES.forEach((r, ruleIndex) => {
  for (const keyword of r.keywords) {
    let k = keywords.indexOf(keyword);
    if (k === -1) {
      k = keywords.push(keyword) - 1;
      rulesOfKeyword.push([]);
    }
    rulesOfKeyword[k].push(ruleIndex);
  }
});
const automaton = keywordAutomaton(keywords);

/** The rules gitleaks' config defines, by id, with what each finds. */
export const GITLEAKS_RULES = rules.map((r) => ({ rule: r.id, finds: r.what }));

export function shannonEntropy(text: string): number {
  if (text === "") return 0;
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  const length = [...text].length;
  let entropy = 0;
  for (const count of counts.values()) {
    const p = count / length;
    entropy -= p * Math.log2(p);
  }
  return entropy;
}

function lineAround(text: string, start: number, end: number): string {
  const from = text.lastIndexOf("\n", start - 1) + 1;
  const to = text.indexOf("\n", end);
  return text.slice(from, to === -1 ? text.length : to);
}

function allowed(rule: Rule, secret: string, match: string, line: string): boolean {
  const lower = secret.toLowerCase();
  if (globalRegexes.some((re) => re.test(secret)) || GLOBAL.stopwords.some((w) => lower.includes(w))) return true;
  return rule.allowlists.some((a) => {
    const target = a.target === "match" ? match : a.target === "line" ? line : secret;
    const checks: boolean[] = [];
    if (a.regexes) checks.push(a.regexes.some((re) => re.test(target)));
    if (a.stopwords.length > 0) checks.push(a.stopwords.some((w) => lower.includes(w)));
    return a.and ? checks.length > 0 && checks.every(Boolean) : checks.some(Boolean);
  });
}

/** Where a text's line breaks and other white space are, found once for all of its rules' windows. */
class Breaks {
  readonly newlines: number[] = [];
  readonly spaces: number[] = [];
  constructor(text: string) {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 10) this.newlines.push(i);
      if (code === 32 || (code >= 9 && code <= 13)) this.spaces.push(i);
    }
  }
  /** The index in `list` of its first position at or after `at` (its length when none). */
  private static indexFrom(list: number[], at: number): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid] < at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  /** The first position in `list` at or after `at`, or undefined. */
  static next(list: number[], at: number): number | undefined {
    return list[Breaks.indexFrom(list, at)];
  }
  /** The last position in `list` before `at`, or undefined. */
  static previous(list: number[], at: number): number | undefined {
    return list[Breaks.indexFrom(list, at) - 1];
  }
}

/**
 * Windows [start, end) around each occurrence, merged: from `before` characters ahead of it (from
 * its line's start when that is no further back), to `after` past it (to its line's end when that
 * is no further; else to the end of the token there, so a 2 kB JWT is not cut). Where the breaks
 * are is looked up, not scanned for, so dense occurrences in a long line (100 kB of prose saying
 * "key") cost a lookup each.
 */
function windowsOf(text: string, breaks: Breaks, starts: number[], before: number, after: number): [number, number][] {
  const windows: [number, number][] = [];
  for (const hit of starts.sort((a, b) => a - b)) {
    const last = windows[windows.length - 1];
    if (last && hit + after <= last[1]) continue;
    const joins = last !== undefined && hit - before <= last[1];
    let start = Math.max(0, hit - before);
    const lineStart = (Breaks.previous(breaks.newlines, start) ?? -1) + 1;
    if (start - lineStart <= before) start = lineStart;
    let end = Math.min(text.length, hit + after);
    const lineEnd = Breaks.next(breaks.newlines, end) ?? text.length;
    end = lineEnd - end <= after ? lineEnd : Math.min(Breaks.next(breaks.spaces, end) ?? text.length, end + MAX_TOKEN);
    if (joins) last[1] = Math.max(last[1], end);
    else windows.push([start, end]);
  }
  return windows;
}

export function scanGitleaks(text: string): GitleaksFinding[] {
  const hitsOfRule = new Map<number, number[]>();
  for (const hit of automaton.scan(text, MAX_HITS_PER_KEYWORD)) {
    for (const r of rulesOfKeyword[hit.keyword]) {
      const list = hitsOfRule.get(r);
      if (list) list.push(hit.start);
      else hitsOfRule.set(r, [hit.start]);
    }
  }
  const findings: GitleaksFinding[] = [];
  const breaks = hitsOfRule.size > 0 ? new Breaks(text) : undefined;
  for (const [index, starts] of hitsOfRule) {
    const rule = rules[index];
    for (const [from, to] of windowsOf(text, breaks!, starts, rule.before, rule.after)) {
      const window = text.slice(from, to);
      rule.regex.lastIndex = 0;
      for (let m = rule.regex.exec(window); m !== null; m = rule.regex.exec(window)) {
        if (m[0].length === 0) {
          rule.regex.lastIndex++;
          continue;
        }
        const match = m[0].replace(/^\n+|\n+$/g, "");
        let secret = match;
        if (m.length > 1) secret = rule.secretGroup > 0 ? (m[rule.secretGroup] ?? "") : (m.slice(1).find((g) => g) ?? match);
        if (!secret) continue;
        if (rule.entropy > 0 && shannonEntropy(secret) <= rule.entropy) continue;
        const matchStart = from + m.index + m[0].indexOf(match);
        if (allowed(rule, secret, match, lineAround(text, matchStart, matchStart + match.length))) continue;
        const at = text.indexOf(secret, matchStart);
        const start = at === -1 || at + secret.length > matchStart + match.length ? matchStart : at;
        findings.push({ rule: rule.id, what: rule.what, secret, range: [start, start + secret.length], confidence: rule.confidence });
      }
    }
  }
  return findings;
}
