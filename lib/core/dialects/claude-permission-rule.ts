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

/**
 * True when `text` is one rule as Claude Code writes it (`Tool(specifier)`, no nesting): Claude Code
 * reads it, so a rule Hookplane cannot translate is a hook to leave out, not a corrupt file.
 */
export function isWellFormedRule(text: string): boolean {
  const m = RULE.exec(text.trim());
  return m !== null && m[2].trim() !== "" && !/[()]/.test(m[2]);
}

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

/** The text `escape` turned into `regex`, or undefined when it holds anything but escaped text. */
function unescapeRegex(regex: string): string | undefined {
  let out = "";
  for (let i = 0; i < regex.length; i++) {
    if (regex[i] === "\\" && i + 1 < regex.length) out += regex[++i];
    else if (/[\\^$.*+?()[\]{}|/]/.test(regex[i])) return undefined;
    else out += regex[i];
  }
  return out;
}

/** The glob a `globToRegex` output came from, or undefined when `regex` is not one. */
function regexToGlob(regex: string): string | undefined {
  let out = "";
  for (let i = 0; i < regex.length; ) {
    const rest = regex.slice(i);
    if (rest.startsWith("(.*/)?")) (out += "**/"), (i += 6);
    else if (rest.startsWith("[^/]*")) (out += "*"), (i += 5);
    else if (rest.startsWith("[^/]")) (out += "?"), (i += 4);
    else if (rest.startsWith(".*")) (out += "**"), (i += 2);
    else if (regex[i] === "\\" && i + 1 < regex.length) (out += regex[i + 1]), (i += 2);
    else if (/[\\^$.*+?()[\]{}|/]/.test(regex[i])) return undefined;
    else (out += regex[i]), (i += 1);
  }
  return out;
}

/**
 * The permission rule a hook's matcher and `when` were read from (`Write(docs/prds/**)`), so an
 * export writes the hook back as narrow as it was: only a `when` that `parsePermissionRule` gives
 * for that rule again counts; anything else is undefined.
 */
export function permissionRuleOf(tool: string, when: string): string | undefined {
  const m = /^toolInput\.(\w+): \/(.*)\/$/s.exec(when);
  if (!m) return undefined;
  const [, field, regex] = m;
  const candidates: string[] = [];
  if (FILE_TOOLS[tool] === field) {
    if (regex.startsWith("(^|/)") && regex.endsWith("$")) candidates.push(regexToGlob(regex.slice(5, -1)) ?? "");
    if (regex.startsWith("^") && regex.endsWith("$")) candidates.push(`/${regexToGlob(regex.slice(1, -1)) ?? ""}`);
  } else if (tool === "Bash" && field === "command") {
    const prefix = /^\^(.*)\(\\s\.\*\)\?\$$/s.exec(regex);
    if (prefix) candidates.push(`${unescapeRegex(prefix[1]) ?? ""}:*`);
    if (regex.startsWith("^") && regex.endsWith("$")) {
      const parts = regex.slice(1, -1).split(".*").map(unescapeRegex);
      if (parts.every((p) => p !== undefined)) candidates.push(parts.join("*"));
    }
  } else if (tool === "WebFetch" && field === "url") {
    const domain = /^\^https\?:\/\/\(\[\^\/@\]\*\\\.\)\?(.*)\(:\\d\+\)\?\(\/\|\$\)$/s.exec(regex);
    if (domain) candidates.push(`domain:${unescapeRegex(domain[1]) ?? ""}`);
  } else if ((tool === "Agent" || tool === "Task") && field === "subagent_type" && regex.startsWith("^") && regex.endsWith("$")) {
    candidates.push(unescapeRegex(regex.slice(1, -1)) ?? "");
  }
  for (const specifier of candidates) {
    const rule = `${tool}(${specifier})`;
    const again = specifier === "" ? undefined : parsePermissionRule(rule);
    if (typeof again === "object" && again.tool === tool && again.when === when) return rule;
  }
  return undefined;
}
