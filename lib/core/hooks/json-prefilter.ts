/**
 * A sound shortcut for `denyIf` (a regex over the JSON of the tool input): most tool calls are
 * allowed, and proving "no match" usually needs no JSON at all. From the pattern we take a *needle*,
 * a piece of text every match must contain, chosen so that it can only occur in the JSON inside one
 * string (a key or a value) exactly as it occurs in the raw string; walking the input and finding the
 * needle in no string then proves the JSON has no match. Anything the walk cannot vouch for (a class
 * instance, a Date, `toJSON`, a BigInt, deep nesting) answers "maybe", and the caller runs the real
 * regex on the real JSON. So the answer is always the same as testing `JSON.stringify(input)`.
 *
 * Why a needle found in no raw string is absent from the JSON (`JSON.stringify` with no indent):
 * - outside strings the JSON has only `{}[]:,`, numbers and `true` / `false` / `null`; a needle with
 *   none of `"{}[]:,\` cannot span two tokens, and one with a character no number or literal has
 *   (anything but `0-9 . e E + - a e f l n r s t u`) cannot lie inside a number or literal;
 * - inside a string, the JSON keeps every character verbatim except escapes (`\"`, `\\`, `\b`, `\f`,
 *   `\n`, `\r`, `\t`, `\uXXXX` with lowercase hex); a needle with no `\` or `"` that occurs there
 *   either lies in a verbatim run (a piece of the raw string) or starts inside an escape, right after
 *   the backslash, which a needle whose first character is none of `b f n r t u 0-9 a-f` cannot.
 */

const STRUCTURAL = /["\\{}[\]:,]/;
/** Characters that can follow a backslash in JSON.stringify's output (after `\u`, lowercase hex). */
const ESCAPE_TAIL = /^[bfnrtu0-9a-f]+/;
/** Needles made only of these could sit inside a number, `true`, `false` or `null`. */
const NUMBER_OR_LITERAL = /^[0-9.eE+\-aflnrstu]*$/;
/** RE2 metacharacters: a literal run of a pattern stops at the first one. */
const REGEX_META = /[\\^$.|?*+()[\]{}]/;
const MAX_DEPTH = 64;

/**
 * The needle of a case-sensitive pattern (`literal`: a plain substring search, else RE2 syntax), or
 * undefined when the pattern has no text every match must contain that the walk can use.
 */
export function jsonNeedle(pattern: string, literal: boolean): string | undefined {
  const required = literal ? pattern : requiredRegexPrefix(pattern);
  let best: string | undefined;
  // Any piece of required text is required too: split on the characters a needle cannot have.
  for (const piece of required.split(STRUCTURAL)) {
    const needle = piece.replace(ESCAPE_TAIL, "");
    if (needle === "" || NUMBER_OR_LITERAL.test(needle)) continue;
    if (best === undefined || needle.length >= best.length) best = needle;
  }
  return best;
}

/**
 * False only when `JSON.stringify(value)` certainly does not contain `needle` (from `jsonNeedle`);
 * true when it does or when the walk cannot tell.
 */
export function jsonMayContain(value: unknown, needle: string): boolean {
  return mayContain(value, needle, 0);
}

function mayContain(value: unknown, needle: string, depth: number): boolean {
  if (typeof value === "string") return value.includes(needle);
  if (typeof value !== "object" || value === null) {
    // Numbers, booleans and null cannot hold a needle; undefined and symbols are left out. A BigInt
    // (JSON.stringify throws unless someone gave it a toJSON) or a function with a toJSON: maybe.
    if (typeof value === "bigint") return true;
    return typeof value === "function" && typeof (value as { toJSON?: unknown }).toJSON === "function";
  }
  if (depth >= MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function") return true;
  const proto = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    if (!Array.isArray(value)) return true;
    for (let i = 0; i < value.length; i++) if (mayContain(value[i], needle, depth + 1)) return true;
    return false;
  }
  if (proto !== Object.prototype && proto !== null) return true;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
    if (key.includes(needle) || mayContain(record[key], needle, depth + 1)) return true;
  }
  return false;
}

/**
 * The literal text an RE2 pattern's every match starts with (it may be empty): its leading run of
 * ordinary characters, when the pattern is a concatenation at the top level (no `|` outside a group
 * or class). A character followed by a quantifier is optional, so it is dropped.
 */
function requiredRegexPrefix(pattern: string): string {
  if (hasTopLevelAlternation(pattern)) return "";
  const meta = pattern.search(REGEX_META);
  if (meta === -1) return pattern;
  const quantified = "?*+{".includes(pattern[meta]);
  return pattern.slice(0, quantified ? Math.max(0, meta - 1) : meta);
}

/** Conservative: true when unsure (an unterminated `\Q`, class or group means "yes"). */
function hasTopLevelAlternation(pattern: string): boolean {
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      if (pattern[i + 1] === "Q") {
        const end = pattern.indexOf("\\E", i + 2);
        if (end === -1) return true;
        i = end + 1;
      } else i++;
    } else if (ch === "[") {
      const end = classEnd(pattern, i);
      if (end === -1) return true;
      i = end;
    } else if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (ch === "|" && depth === 0) return true;
  }
  return depth !== 0;
}

/** The index of the `]` closing the class opened at `start`, or -1. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === "^") i++;
  if (pattern[i] === "]") i++; // a leading `]` is a literal
  for (; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") i++;
    else if (ch === "[" && pattern[i + 1] === ":") {
      const end = pattern.indexOf(":]", i + 2);
      if (end === -1) return -1;
      i = end + 1;
    } else if (ch === "]") return i;
  }
  return -1;
}
