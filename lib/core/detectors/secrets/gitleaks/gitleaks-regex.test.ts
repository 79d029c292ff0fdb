/**
 * Go's RE2 patterns written for V8: scoped case-insensitivity, scoped dot-all, POSIX classes and
 * named groups, each matching what RE2 matches (RE2JS, which reads Go's syntax, is the referee).
 */
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import data from "./gitleaks-rules.json";
import { javascriptRegex } from "./gitleaks-regex";

const js = (go: string) => {
  const { source, flags } = javascriptRegex(go);
  return new RegExp(source, flags.replace("g", ""));
};

describe("a Go pattern as JavaScript", () => {
  it.each([
    ["(?i)token", ["TOKEN", "Token", "token"], ["tok"]],
    ["\\b(p8e-(?i)[a-z0-9]{4})\\b", ["p8e-AB12", "p8e-ab12"], ["P8E-ab12"]],
    ["(?i)(?:key|(?-i:[Aa]pi|API))=", ["KEY=", "Api=", "API=", "api="], ["aPI=", "aPi="]],
    ["a(?s:.){0,3}b", ["a\nb", "axxb"], ["axxxxb"]],
    ["x.y", ["x-y"], ["x\ny"]],
    ["\\b(pat[[:alnum:]]{3})\\b", ["patA1b"], ["pat-1b"]],
    ["\\bZ(?P<alg>ab)", ["Zab"], ["ZAB"]],
    ["^end\\z", ["end"], ["end\n"]],
  ])("%s", (go, matching, notMatching) => {
    const re2 = RE2JS.compile(go);
    for (const text of matching) expect([text, js(go).test(text), re2.matcher(text).find()]).toEqual([text, true, true]);
    for (const text of notMatching) expect([text, js(go).test(text), re2.matcher(text).find()]).toEqual([text, false, false]);
  });

  it("reads every pattern of the vendored rules", () => {
    for (const rule of (data as { rules: { id: string; regex: { source: string; flags: string } }[] }).rules) {
      expect(() => new RegExp(rule.regex.source, rule.regex.flags), rule.id).not.toThrow();
    }
  });
});
