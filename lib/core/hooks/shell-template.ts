/**
 * `{{templates}}` in a shell command. A value (a path the model chose, a response) must never be
 * read as shell text: `echo {{toolInput.path}}` with `x; rm -rf ~` would run the `rm`. Each
 * placeholder becomes a reference to an environment variable holding the value, quoted for where
 * it stands: `"${HOOK_VAR_1}"` outside quotes, `${HOOK_VAR_1}` inside double quotes, and
 * `'"${HOOK_VAR_1}"'` inside single quotes (close, expand, reopen). The shell then expands the
 * variable as data. If the quote tracking below misreads an unusual command, the worst outcome
 * is a wrongly quoted reference (word splitting of the value), never the value run as code,
 * because the value itself is not in the text.
 */
import { readPath } from "./when";
import type { TemplateVars } from "./template";

const VARIABLE = /\{\{\s*([\w$-]+(?:\.[\w$-]+)*)\s*\}\}/g;

/** The prefix of the variables that carry template values; it is not in any scrubbed set. */
export const TEMPLATE_ENV_PREFIX = "HOOK_VAR_";

export interface BoundCommand {
  command: string;
  /** The values, by variable name; empty when the command has no known placeholder. */
  env: Record<string, string>;
}

type Quote = "none" | "single" | "double";

/** The quote state after reading `text` from state `state` (POSIX sh rules, no nesting). */
function advance(state: Quote, text: string): Quote {
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (state === "single") {
      if (ch === "'") state = "none";
    } else if (ch === "\\") {
      i++; // the next character is escaped (outside quotes and inside double quotes alike)
    } else if (state === "double") {
      if (ch === '"') state = "none";
    } else if (ch === "'") state = "single";
    else if (ch === '"') state = "double";
  }
  return state;
}

function reference(name: string, state: Quote): string {
  if (state === "double") return `\${${name}}`;
  if (state === "single") return `'"\${${name}}"'`;
  return `"\${${name}}"`;
}

/** Like renderTemplate, but every known placeholder becomes a quoted variable reference. */
export function bindTemplateToEnv(text: string, vars: TemplateVars, context?: Record<string, unknown>): BoundCommand {
  const env: Record<string, string> = {};
  if (!text.includes("{{")) return { command: text, env };
  let out = "";
  let state: Quote = "none";
  let last = 0;
  let count = 0;
  for (const match of text.matchAll(VARIABLE)) {
    const before = text.slice(last, match.index);
    state = advance(state, before);
    out += before;
    last = match.index + match[0].length;
    const name = match[1];
    const value = Object.hasOwn(vars, name) ? vars[name] : context ? readPath(context, name.split(".")) : undefined;
    if (value === undefined || value === null) {
      // Unknown placeholders stay as written, as in renderTemplate, so a typo shows.
      out += match[0];
      state = advance(state, match[0]);
      continue;
    }
    const variable = `${TEMPLATE_ENV_PREFIX}${++count}`;
    env[variable] = typeof value === "object" ? JSON.stringify(value) : String(value);
    out += reference(variable, state);
  }
  return { command: out + text.slice(last), env };
}
