/**
 * A gitleaks pattern (Go's RE2 syntax) written as a JavaScript one, for V8 to run: gitleaks' rules
 * are tuned for RE2, and RE2JS ran them 20 to 50 times slower than V8 does (100 kB: 12–117 ms a
 * rule), too slow for the hook path. What differs:
 * - case-insensitivity scoped to a group or to the rest of one (`(?i)` mid-pattern, `(?i:…)`,
 *   `(?-i:…)`), which JavaScript has only for the whole pattern: letters in such a scope are written
 *   in both cases (`[kK]`, `[a-zA-Z]`), so the rest keeps its case;
 * - `(?s:…)` scoped dot-all: its `.` is written `[\s\S]`;
 * - `(?P<name>…)`, `[[:alnum:]]` and the like, `\z` and `\A`.
 * The patterns are linear-time in RE2 and bounded in repetition, and each runs over a window around
 * one of its keywords (gitleaks-scan.ts), never a whole large text.
 */

const POSIX: Record<string, string> = {
  alnum: "a-zA-Z0-9",
  alpha: "a-zA-Z",
  digit: "0-9",
  lower: "a-z",
  upper: "A-Z",
  xdigit: "0-9a-fA-F",
  space: "\\s",
  word: "\\w",
  punct: "!-\\/:-@\\[-`{-~",
};

interface Mode {
  caseless: boolean;
  dotAll: boolean;
}

function applyFlags(mode: Mode, flags: string): Mode {
  const [on, off = ""] = flags.split("-");
  return {
    caseless: off.includes("i") ? false : on.includes("i") ? true : mode.caseless,
    dotAll: off.includes("s") ? false : on.includes("s") ? true : mode.dotAll,
  };
}

const isLetter = (c: string) => /[a-zA-Z]/.test(c);
const bothCases = (c: string) => `${c.toLowerCase()}${c.toUpperCase()}`;

/** A character class's body, with both cases of its letters and ranges when caseless. */
function classBody(body: string, caseless: boolean): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const posix = /^\[:(\^?)(\w+):\]/.exec(body.slice(i));
    if (posix && POSIX[posix[2]] && !posix[1]) {
      out += POSIX[posix[2]];
      i += posix[0].length - 1;
      continue;
    }
    if (body[i] === "\\") {
      out += body.slice(i, i + 2);
      i++;
      continue;
    }
    const range = /^([a-zA-Z])-([a-zA-Z])/.exec(body.slice(i));
    if (range && caseless) {
      const [from, to] = [range[1].toLowerCase(), range[2].toLowerCase()];
      out += `${from}-${to}${from.toUpperCase()}-${to.toUpperCase()}`;
      i += 2;
      continue;
    }
    if (range) {
      out += range[0];
      i += 2;
      continue;
    }
    out += caseless && isLetter(body[i]) ? bothCases(body[i]) : body[i];
  }
  return out;
}

export function javascriptRegex(go: string): { source: string; flags: string } {
  let pattern = go;
  let mode: Mode = { caseless: false, dotAll: false };
  const leading = /^\(\?([a-z]+)\)/.exec(pattern);
  if (leading) {
    mode = applyFlags(mode, leading[1]);
    pattern = pattern.slice(leading[0].length);
  }
  // The common case: one case mode for the whole pattern, which the `i` flag says as it is.
  if (!/\(\?-?[a-z]*[is][a-z-]*[:)]/.test(pattern) && !pattern.includes("(?P<") && !pattern.includes("[[:") && !/\\[zA]/.test(pattern)) {
    return { source: pattern, flags: mode.caseless ? "gi" : "g" };
  }
  const stack: Mode[] = [];
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const next = pattern[i + 1];
      out += next === "z" ? "$" : next === "A" ? "^" : pattern.slice(i, i + 2);
      // \x60 and the like: the escape's own characters follow as they are.
      i++;
      continue;
    }
    if (c === "[") {
      // The class runs to its first unescaped `]` that is not its first character (or a POSIX name's).
      let j = i + 1;
      if (pattern[j] === "^") j++;
      if (pattern[j] === "]") j++;
      while (j < pattern.length && pattern[j] !== "]") {
        if (pattern[j] === "\\") j++;
        else if (pattern.startsWith("[:", j)) j = pattern.indexOf(":]", j) + 1;
        j++;
      }
      const negated = pattern[i + 1] === "^";
      out += `[${negated ? "^" : ""}${classBody(pattern.slice(i + (negated ? 2 : 1), j), mode.caseless)}]`;
      i = j;
      continue;
    }
    if (c === "(") {
      const flagsOnly = /^\(\?([a-z-]+)\)/.exec(pattern.slice(i));
      if (flagsOnly) {
        // Go: the flags hold to the end of the enclosing group.
        mode = applyFlags(mode, flagsOnly[1]);
        i += flagsOnly[0].length - 1;
        continue;
      }
      stack.push(mode);
      const scoped = /^\(\?([a-z-]+):/.exec(pattern.slice(i));
      if (scoped) {
        mode = applyFlags(mode, scoped[1]);
        out += "(?:";
        i += scoped[0].length - 1;
        continue;
      }
      const named = /^\(\?P?<(\w+)>/.exec(pattern.slice(i));
      if (named) {
        out += `(?<${named[1]}>`;
        i += named[0].length - 1;
        continue;
      }
      out += c;
      continue;
    }
    if (c === ")") {
      mode = stack.pop() ?? mode;
      out += c;
      continue;
    }
    if (c === "." && mode.dotAll) {
      out += "[\\s\\S]";
      continue;
    }
    out += mode.caseless && isLetter(c) ? `[${bothCases(c)}]` : c;
  }
  return { source: out, flags: "g" };
}
