/**
 * Templating of hook fields. `{{var}}` reads the variables the entry point provides (Tailored AI:
 * `response` after the loop; cron's `last_run`, `last_run_epoch`, `last_response`, `next_task`) and
 * falls back to a dot path into the event context (`{{metadata.retailer}}`). An unknown variable
 * stays as written, so a typo is visible in the output instead of silently becoming "".
 * `${secret:NAME}` is replaced with a secret the hook itself names, only in the fields that carry
 * credentials (secret-placement.ts), and in the same pass as the variables: text a variable brings
 * in (a tool input the model wrote) is never read for secret references.
 */
import { readPath } from "./when";

const VARIABLE = /\{\{\s*([\w$-]+(?:\.[\w$-]+)*)\s*\}\}/g;
const SECRET = /\$\{secret:([A-Za-z_][A-Za-z0-9_]*)\}/g;
const VARIABLE_OR_SECRET = /\{\{\s*([\w$-]+(?:\.[\w$-]+)*)\s*\}\}|\$\{secret:([A-Za-z_][A-Za-z0-9_]*)\}/g;

export type TemplateVars = Record<string, unknown>;

export function renderTemplate(text: string, vars: TemplateVars, context?: Record<string, unknown>): string {
  if (!text.includes("{{")) return text;
  return text.replace(VARIABLE, (whole, name: string) => variableText(whole, name, vars, context));
}

/** Variables and `${secret:NAME}` in one pass: a variable's value is never scanned for references. */
export function renderWithSecrets(
  text: string,
  vars: TemplateVars,
  context: Record<string, unknown> | undefined,
  secrets: ReadonlyMap<string, string>,
): string {
  if (!text.includes("{{") && !text.includes("${secret:")) return text;
  return text.replace(VARIABLE_OR_SECRET, (whole, name: string | undefined, secret: string | undefined) =>
    name !== undefined ? variableText(whole, name, vars, context) : (secrets.get(secret!) ?? whole),
  );
}

function variableText(whole: string, name: string, vars: TemplateVars, context: Record<string, unknown> | undefined): string {
  const value = Object.hasOwn(vars, name) ? vars[name] : context ? readPath(context, name.split(".")) : undefined;
  if (value === undefined || value === null) return whole;
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** Replaces `${secret:NAME}` with resolved values; an unresolved one stays as written. */
export function substituteSecrets(text: string, secrets: ReadonlyMap<string, string>): string {
  if (!text.includes("${secret:")) return text;
  return text.replace(SECRET, (whole, name: string) => secrets.get(name) ?? whole);
}

/** Applies `render` to every string inside a JSON-like value (tool args, headers). */
export function mapStrings(value: unknown, render: (text: string) => string): unknown {
  if (typeof value === "string") return render(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, render));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = mapStrings(item, render);
    return out;
  }
  return value;
}

/** `${secret:NAME}` references in one text, with where each stands. */
export function secretReferences(text: string): { name: string; start: number; end: number }[] {
  if (!text.includes("${secret:")) return [];
  return [...text.matchAll(SECRET)].map((m) => ({ name: m[1], start: m.index, end: m.index + m[0].length }));
}

/** The secret names referenced as `${secret:NAME}` anywhere inside a value. */
export function secretNamesIn(value: unknown, into: Set<string> = new Set()): Set<string> {
  mapStrings(value, (text) => {
    for (const match of text.matchAll(SECRET)) into.add(match[1]);
    return text;
  });
  return into;
}
