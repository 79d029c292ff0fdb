/**
 * `npx tsx scripts/vendor-gitleaks.ts <gitleaks checkout>`: brings gitleaks' rules and its own
 * test cases into Hookplane, from a checkout of github.com/gitleaks/gitleaks (MIT).
 *
 * - lib/core/detectors/secrets/gitleaks/gitleaks-rules.json: config/gitleaks.toml, each Go (RE2)
 *   pattern written as a JavaScript one (gitleaks-regex.ts says how) and checked to compile.
 * - test/fixtures/detectors/gitleaks/cases.json: each rule's true and false positives as its Go
 *   source (cmd/generate/config/rules/*.go) builds them for gitleaks' own validation: literals,
 *   `utils.GenerateSampleSecrets` (read from its source: the same 30-odd layouts) and the random
 *   secrets of `secrets.NewSecret(pattern)`, made here by randexp from the same pattern with a
 *   fixed seed, so the file comes out the same each time. A case built some other way is left out
 *   and counted.
 */
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import RandExp from "randexp";
import { parse } from "smol-toml";
import { javascriptRegex } from "../lib/core/detectors/secrets/gitleaks/gitleaks-regex";

const root = process.argv[2];
if (!root) {
  console.error("usage: npx tsx scripts/vendor-gitleaks.ts <gitleaks checkout>");
  process.exit(2);
}
const commit = process.argv[3] ?? "unknown";
const repo = path.resolve(import.meta.dirname, "..");

// --- the rules ---------------------------------------------------------------------------------

interface TomlAllowlist {
  condition?: string;
  regexTarget?: string;
  regexes?: string[];
  stopwords?: string[];
  paths?: string[];
}
interface TomlRule {
  id: string;
  description: string;
  regex?: string;
  secretGroup?: number;
  entropy?: number;
  keywords?: string[];
  path?: string;
  allowlists?: TomlAllowlist[];
}
const toml = parse(readFileSync(path.join(root, "config/gitleaks.toml"), "utf8")) as unknown as {
  allowlist: { regexes: string[]; stopwords: string[] };
  rules: TomlRule[];
};

const js = (go: string) => {
  const { source, flags } = javascriptRegex(go);
  new RegExp(source, flags); // throws on a pattern JavaScript cannot read
  return { source, flags };
};
const rules = toml.rules
  .filter((r) => r.regex) // a path-only rule (pkcs12-file) names files, and a hook reads text
  .map((r) => ({
    id: r.id,
    description: r.description,
    regex: js(r.regex!),
    ...(r.secretGroup && { secretGroup: r.secretGroup }),
    ...(r.entropy && { entropy: r.entropy }),
    keywords: (r.keywords ?? []).map((k) => k.toLowerCase()),
    // A path condition cannot hold for text that is not a file: such an allowlist never applies.
    allowlists: (r.allowlists ?? [])
      .filter((a) => !(a.paths?.length && (a.condition ?? "OR").toUpperCase() === "AND"))
      .filter((a) => a.regexes?.length || a.stopwords?.length)
      .map((a) => ({
        condition: (a.condition ?? "OR").toUpperCase(),
        target: a.regexTarget ?? "secret",
        regexes: (a.regexes ?? []).map(js),
        stopwords: (a.stopwords ?? []).map((w) => w.toLowerCase()),
      })),
  }));
const genericStopwords = rules.find((r) => r.id === "generic-api-key")?.allowlists.flatMap((a) => a.stopwords) ?? [];
const rulesFile = path.join(repo, "lib/core/detectors/secrets/gitleaks/gitleaks-rules.json");
writeFileSync(
  rulesFile,
  `${JSON.stringify({ source: `github.com/gitleaks/gitleaks ${commit} config/gitleaks.toml`, allowlist: { regexes: toml.allowlist.regexes.map(js), stopwords: toml.allowlist.stopwords.map((w) => w.toLowerCase()) }, rules }, null, 1)}\n`,
);
console.log(`${rules.length} rules → ${path.relative(repo, rulesFile)}`);

// --- the cases -----------------------------------------------------------------------------------

/** The same sequence every run (mulberry32), for randexp's choices. */
let seed = 0x5eed;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function newSecret(pattern: string): string {
  const { source, flags } = javascriptRegex(pattern);
  const generator = new RandExp(new RegExp(source, flags.replace("g", "")));
  generator.max = 8;
  generator.randInt = (from: number, to: number) => from + Math.floor(random() * (to - from + 1));
  return generator.gen();
}

const utilsDir = path.join(root, "cmd/generate/config/utils");
const generateGo = readFileSync(path.join(utilsDir, "generate.go"), "utf8");
const patternsGo = readFileSync(path.join(utilsDir, "patterns.go"), "utf8");

/** The layouts of GenerateSampleSecrets, as its map literal lists them (commented ones are not in it). */
const sampleLayouts = (() => {
  const body = generateGo.slice(generateGo.indexOf("func GenerateSampleSecrets"));
  const map = body.slice(body.indexOf("map[string]string{"), body.indexOf("replacer :="));
  return [...map.matchAll(/^\s*"[^"]*":\s*("(?:[^"\\]|\\.)*"|`[^`]*`),/gm)].map((m) => goString(m[1]));
})();
/** utils.AlphaNumeric("32") and friends: their fmt.Sprintf pattern with the size put in. */
const patternHelpers = new Map<string, string>(
  [...patternsGo.matchAll(/func (\w+)\((?:size string)?\) string \{\s*return (?:fmt\.Sprintf\(`([^`]*)`, size\)|`([^`]*)`)/g)].map((m) => [m[1], m[2] ?? m[3]]),
);

function goString(literal: string): string {
  if (literal.startsWith("`")) return literal.slice(1, -1);
  return JSON.parse(literal.replace(/\\x([0-9a-fA-F]{2})/g, "\\u00$1").replace(/\\a|\\v|\\f/g, ""));
}

type Value = string | string[] | undefined;
class Unsupported extends Error {}

/** A Go expression of the subset rules/*.go builds its cases with, read from `text` at `i`. */
function evaluate(text: string, start: number, locals: Map<string, Value>): { value: Value; end: number } {
  let i = start;
  const skip = () => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i])) i++;
      if (text.startsWith("//", i)) i = text.indexOf("\n", i) === -1 ? text.length : text.indexOf("\n", i);
      else break;
    }
  };
  const args = (): Value[] => {
    const out: Value[] = [];
    skip();
    if (text[i] === ")" || text[i] === "}") return (i++, out);
    for (;;) {
      const { value, end } = evaluate(text, i, locals);
      i = end;
      skip();
      if (text.startsWith("...", i)) i += 3;
      out.push(value);
      skip();
      if (text[i] === ",") {
        i++;
        skip();
        if (text[i] === ")" || text[i] === "}") return (i++, out);
        continue;
      }
      if (text[i] === ")" || text[i] === "}") return (i++, out);
      throw new Unsupported(`unexpected ${JSON.stringify(text.slice(i, i + 20))}`);
    }
  };
  const primary = (): Value => {
    skip();
    const literal = /^("(?:[^"\\\n]|\\.)*"|`[^`]*`)/.exec(text.slice(i));
    if (literal) {
      i += literal[0].length;
      return goString(literal[0]);
    }
    if (text.startsWith("[]string{", i)) {
      i += "[]string{".length;
      return args().flatMap((v) => (Array.isArray(v) ? v : v === undefined ? [undefined as never] : [v]));
    }
    const call = /^([A-Za-z_][\w.]*)/.exec(text.slice(i));
    if (!call) throw new Unsupported(`unexpected ${JSON.stringify(text.slice(i, i + 20))}`);
    i += call[0].length;
    skip();
    if (text[i] !== "(") {
      if (!locals.has(call[1])) throw new Unsupported(`unknown name ${call[1]}`);
      return locals.get(call[1]);
    }
    i++;
    const a = args();
    const name = call[1];
    const str = (v: Value) => {
      if (typeof v !== "string") throw new Unsupported(`${name} of a non-string`);
      return v;
    };
    if (name === "append") return [...((a[0] as string[]) ?? []), ...a.slice(1).flatMap((v) => (Array.isArray(v) ? v : [v as string]))];
    if (name === "utils.GenerateSampleSecrets") return sampleLayouts.map((l) => l.replaceAll("{i}", str(a[0])).replaceAll("{I}", str(a[0]).toUpperCase()).replaceAll("{s}", str(a[1])));
    if (name === "utils.GenerateSampleSecret") return `${str(a[0])}_api_token = "${str(a[1])}"`;
    if (name === "secrets.NewSecret" || name === "newPlausibleSecret") {
      // newPlausibleSecret (generic.go) retries until the secret has a digit and none of the generic rule's stopwords.
      for (;;) {
        const secret = newSecret(str(a[0]));
        if (name === "secrets.NewSecret" || (/[1-9]/.test(secret) && !genericStopwords.some((w) => secret.toLowerCase().includes(w)))) return secret;
      }
    }
    if (name.startsWith("utils.") && patternHelpers.has(name.slice(6))) return patternHelpers.get(name.slice(6))!.replace("%s", a[0] === undefined ? "" : str(a[0]));
    throw new Unsupported(`call to ${name}`);
  };
  let value = primary();
  for (;;) {
    skip();
    if (text[i] !== "+" || text[i + 1] === "=") return { value, end: i };
    i++;
    const right = primary();
    if (typeof value !== "string" || typeof right !== "string") throw new Unsupported("+ of non-strings");
    value = value + right;
  }
}

interface Case {
  rule: string;
  /** true: the rule must find a secret in it; false: it must not. */
  secret: boolean;
  text: string;
}
const cases: Case[] = [];
const skipped: string[] = [];
const rulesDir = path.join(root, "cmd/generate/config/rules");
for (const file of readdirSync(rulesDir).filter((f) => f.endsWith(".go") && !f.endsWith("_test.go")).sort()) {
  const source = readFileSync(path.join(rulesDir, file), "utf8");
  for (const fn of source.split(/^func /m).slice(1)) {
    const ruleId = /RuleID:\s*"([^"]+)"/.exec(fn)?.[1];
    if (!ruleId || !rules.some((r) => r.id === ruleId)) continue;
    const locals = new Map<string, Value>();
    for (const m of fn.matchAll(/^\s*(tps|fps|\w+)\s*(:=|=)\s*/gm)) {
      const name = m[1];
      if (name !== "tps" && name !== "fps" && !/^\s*\w+\s*:?=\s*(?:utils\.|secrets\.|"|`|\[\]string)/.test(m[0] + fn.slice(m.index! + m[0].length, m.index! + m[0].length + 20))) continue;
      try {
        locals.set(name, evaluate(fn, m.index! + m[0].length, locals).value);
      } catch (error) {
        if (name === "tps" || name === "fps") skipped.push(`${ruleId} ${name}: ${(error as Error).message}`);
      }
    }
    for (const [name, secret] of [["tps", true], ["fps", false]] as const) {
      const values = locals.get(name);
      for (const text of Array.isArray(values) ? values : []) if (typeof text === "string") cases.push({ rule: ruleId, secret, text });
    }
  }
}
const casesDir = path.join(repo, "test/fixtures/detectors/gitleaks");
mkdirSync(casesDir, { recursive: true });
writeFileSync(path.join(casesDir, "cases.json"), `${JSON.stringify(cases, null, 1)}\n`);
writeFileSync(path.join(casesDir, "LICENSE"), readFileSync(path.join(root, "LICENSE"), "utf8"));
const covered = new Set(cases.map((c) => c.rule));
console.log(`${cases.length} cases (${cases.filter((c) => c.secret).length} with a secret) of ${covered.size} rules → test/fixtures/detectors/gitleaks/cases.json`);
console.log(`left out: ${skipped.length} assignments built another way`);
for (const s of skipped) console.log(`  ${s}`);
console.log(`rules without a case: ${rules.filter((r) => !covered.has(r.id)).map((r) => r.id).join(", ") || "none"}`);
