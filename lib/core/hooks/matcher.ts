/**
 * `matcher`: which tool (or agent) a hook applies to. The forms of every seed system:
 * empty or `*` matches everything; `Write` or `Edit|Write` is an exact name list (AgenTopology,
 * Claude Code); anything else is a regex that must match the whole name (`mcp__.*`, `Notebook.*`),
 * so `Write` never fires for `WriteFile`.
 */
import { compileLinearRegex } from "./linear-regex";

export type NameMatcher = (name: string) => boolean;

const matchAll: NameMatcher = () => true;
const NAME_LIST = /^[\w-]+(\|[\w-]+)*$/;

/** Throws on an invalid regex (the spec schema reports it at parse time). */
export function compileMatcher(pattern: string | undefined): NameMatcher {
  const trimmed = pattern?.trim() ?? "";
  if (trimmed === "" || trimmed === "*") return matchAll;
  if (NAME_LIST.test(trimmed)) {
    const names = trimmed.split("|");
    if (names.length === 1) return (name) => name === trimmed;
    const set = new Set(names);
    return (name) => set.has(name);
  }
  const re = compileLinearRegex(trimmed);
  return (name) => re.testWhole(name);
}

/** Loom's `tools` globs on `approve`: `*` any run of characters, `?` one character, whole name. */
export function compileGlobs(globs: readonly string[] | undefined): NameMatcher {
  if (!globs || globs.length === 0) return matchAll;
  const source = globs.map(globToRegex).join("|");
  const re = compileLinearRegex(`(?:${source})`);
  return (name) => re.testWhole(name);
}

function globToRegex(glob: string): string {
  let out = "";
  for (const ch of glob) {
    if (ch === "*") out += ".*";
    else if (ch === "?") out += ".";
    else out += /[\\^$.|+()[\]{}]/.test(ch) ? `\\${ch}` : ch;
  }
  return `(?:${out})`;
}
