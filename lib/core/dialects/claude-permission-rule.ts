/**
 * Claude Code's permission-rule form, `Tool(specifier)`, as hook matchers and `if` conditions use
 * it (`Write(docs/prds/**)`, `Bash(npm run test:*)`, `WebFetch(domain:example.com)`), turned into
 * a Hookplane matcher (the tool) and a `when` over the tool's input. Claude Code's semantics:
 * paths are gitignore-style globs (`**` any depth, `*` one segment; `//x` absolute, anything else
 * relative, so it may sit anywhere under the project); Bash rules are a prefix (`cmd:*`) or a
 * pattern with `*`; WebFetch names a domain.
 */

export type PermissionRule = { tool: string; when: string };

const RULE = /^([A-Za-z_][\w-]*)\((.*)\)$/s;
const FILE_TOOLS: Record<string, string> = { Read: "file_path", Write: "file_path", Edit: "file_path", MultiEdit: "file_path", NotebookEdit: "notebook_path" };

/** True when `matcher` is written as a permission rule (has a parenthesised specifier). */
export function looksLikePermissionRule(matcher: string): boolean {
  return matcher.includes("(") || matcher.includes(")");
}

const escape = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");

function globToRegex(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      out += slash ? "(.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else out += escape(c);
  }
  return out;
}

/** A `when` regex literal: slashes inside are escaped so the literal stays one. */
const literal = (regex: string) => `/${regex}/`;

/** `Tool(specifier)` → matcher and condition; a string saying what is wrong otherwise. */
export function parsePermissionRule(text: string): PermissionRule | string {
  const m = RULE.exec(text.trim());
  if (!m) return `"${text}" is neither a tool name pattern nor a permission rule Tool(specifier)`;
  const [, tool, specifier] = m;
  if (specifier.trim() === "") return `${tool}() has an empty specifier; write ${tool} to match every call`;
  if (specifier.includes("(") || specifier.includes(")")) return `"${text}": one permission rule per matcher (no nested or combined rules)`;
  const field = FILE_TOOLS[tool];
  if (field) {
    const absolute = specifier.startsWith("//");
    const path = absolute ? specifier.slice(1) : specifier.replace(/^\.?\//, "").replace(/^~\//, "");
    return { tool, when: `toolInput.${field}: ${literal(`${absolute ? "^" : "(^|/)"}${globToRegex(path)}$`)}` };
  }
  if (tool === "Bash") {
    if (specifier.endsWith(":*")) return { tool, when: `toolInput.command: ${literal(`^${escape(specifier.slice(0, -2))}(\\s.*)?$`)}` };
    return { tool, when: `toolInput.command: ${literal(`^${specifier.split("*").map(escape).join(".*")}$`)}` };
  }
  if (tool === "WebFetch") {
    const domain = /^domain:(.+)$/.exec(specifier)?.[1];
    if (!domain) return `WebFetch rules name a domain: WebFetch(domain:example.com), not "${specifier}"`;
    return { tool, when: `toolInput.url: ${literal(`^https?://([^/@]*\\.)?${escape(domain)}(:\\d+)?(/|$)`)}` };
  }
  if (tool === "Agent" || tool === "Task") return { tool, when: `toolInput.subagent_type: ${literal(`^${escape(specifier)}$`)}` };
  return `"${text}": Hookplane does not know which input of ${tool} the rule tests (it reads rules of Read, Write, Edit, MultiEdit, NotebookEdit, Bash, WebFetch and Agent)`;
}
