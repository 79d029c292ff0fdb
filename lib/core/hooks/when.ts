/**
 * `when`: a condition over the event context. Two forms, from herdctl and Tailored AI:
 * `metadata.shouldNotify` (the dot path must be truthy) and `toolName: /^(Write|Edit)$/` or
 * `toolName: Write` (the value at the path must match the regex, or equal the text).
 */
import { compileLinearRegex } from "./linear-regex";

export interface WhenCondition {
  readonly source: string;
  /** Undefined when the condition holds; otherwise the ledger's "why not". */
  check(context: Record<string, unknown>): string | undefined;
}

const WHEN = /^\s*([A-Za-z_$][\w$-]*(?:\.[\w$-]+)*)\s*(?::\s*(.*?))?\s*$/;
const REGEX_LITERAL = /^\/(.*)\/(i?)$/;

/** Throws with a readable message when the condition or its regex is malformed. */
export function compileWhen(source: string): WhenCondition {
  const parsed = WHEN.exec(source);
  if (!parsed) {
    throw new Error('when is a dot path ("metadata.shouldNotify") or "path: /regex/" or "path: value"');
  }
  const path = parsed[1].split(".");
  const expected = parsed[2];
  if (expected === undefined || expected === "") {
    return {
      source,
      check: (context) => (readPath(context, path) ? undefined : `when ${parsed[1]} is falsy`),
    };
  }
  const literal = REGEX_LITERAL.exec(expected);
  if (literal) {
    const re = compileLinearRegex(literal[1], { ignoreCase: literal[2] === "i" });
    return {
      source,
      check: (context) => {
        const value = readPath(context, path);
        return value !== undefined && value !== null && re.test(stringify(value))
          ? undefined
          : `when ${parsed[1]} did not match ${expected}`;
      },
    };
  }
  const text = expected.replace(/^(["'])(.*)\1$/, "$2");
  return {
    source,
    check: (context) =>
      stringify(readPath(context, path)) === text ? undefined : `when ${parsed[1]} is not "${text}"`,
  };
}

/** The value at a dot path, or undefined; never throws (prototype keys are not followed). */
export function readPath(root: unknown, path: readonly string[]): unknown {
  let value: unknown = root;
  for (const key of path) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function stringify(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}
