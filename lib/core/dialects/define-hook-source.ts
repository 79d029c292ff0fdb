/**
 * Reads `defineHook({ type: "…", id: "…", execute … })` calls out of TypeScript/JavaScript source
 * without executing or fully parsing it: the importer only needs the top-level properties of the
 * object literal, and which of them are plain string literals.
 */

export type DefineHookCall = {
  /** 1-based line of `defineHook(`. */
  line: number;
  /** Top-level property name → its string-literal value, or null when the value is not a plain literal. */
  properties: Map<string, string | null>;
};

const CALL = /\bdefineHook\s*(?:<[^>()]*>)?\s*\(\s*\{/g;
const PROPERTY = /^(?:async\s+)?(?:\*\s*)?(?:(["'])([^"']+)\1|([A-Za-z_$][\w$]*))\s*([:(,]|$)/;
const STRING_LITERAL = /^(["'`])([\s\S]*)\1$/;

function lineAt(source: string, offset: number): number {
  return source.slice(0, offset).split("\n").length;
}

/** The top-level, comment-free segments between commas of the object literal opening at `start` (its `{`). */
function topLevelSegments(source: string, start: number): string[] {
  const segments: string[] = [];
  let current = "";
  let depth = 0;
  for (let i = start; i < source.length; i++) {
    const ch = source[i];
    const next = source[i + 1];
    if (ch === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i++;
      continue;
    }
    if (ch === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end === -1 ? source.length : end + 1;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === "`") {
      let j = i + 1;
      while (j < source.length && source[j] !== ch) j += source[j] === "\\" ? 2 : 1;
      if (depth === 1) current += source.slice(i, j + 1);
      i = j;
      continue;
    }
    if (ch === "{" || ch === "(" || ch === "[") {
      depth++;
      if (depth === 1) continue;
    } else if (ch === "}" || ch === ")" || ch === "]") {
      depth--;
      if (depth === 0) {
        segments.push(current);
        return segments;
      }
    } else if (ch === "," && depth === 1) {
      segments.push(current);
      current = "";
      continue;
    }
    if (depth >= 1) current += depth === 1 ? ch : ch === "\n" ? " " : ch;
  }
  return segments;
}

export function findDefineHookCalls(source: string): DefineHookCall[] {
  const calls: DefineHookCall[] = [];
  for (const match of source.matchAll(CALL)) {
    const brace = (match.index ?? 0) + match[0].length - 1;
    const properties = new Map<string, string | null>();
    for (const segment of topLevelSegments(source, brace)) {
      const text = segment.trim();
      if (text === "") continue;
      const property = PROPERTY.exec(text);
      if (!property) continue;
      const key = property[2] ?? property[3];
      const value = property[4] === ":" ? text.slice(text.indexOf(":") + 1).trim() : "";
      const literal = STRING_LITERAL.exec(value);
      properties.set(key, literal && !(literal[1] === "`" && literal[2].includes("${")) ? literal[2] : null);
    }
    calls.push({ line: lineAt(source, match.index ?? 0), properties });
  }
  return calls;
}
