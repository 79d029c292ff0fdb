/**
 * `when`: a condition over the event context. Two forms, from herdctl and Tailored AI:
 * `metadata.shouldNotify` (the dot path must be truthy) and `toolName: /^(Write|Edit)$/` or
 * `toolName: Write` (the value at the path must match the regex, or equal the text); and
 * Hookplane's `detects(shell.destructive, pii)`: one of those detectors finds something in what
 * it reads of the event (lib/core/detectors), so any hook can be conditioned on a detector.
 * A leading `!` negates a path form (`!actor.groups: /"on-call"/`): an allow-list ("only the
 * on-call may touch prod") is a deny for everyone the condition does not hold for.
 */
import { DETECTOR_NAMES, NOT_IN_WHEN, type DetectorName } from "../detectors/detector-names";
import { compileLinearRegex } from "./linear-regex";

/**
 * What the named detectors find in the event (the first finding's "detector/rule"), or undefined.
 * Given by the runtime (compiled-hooks.ts), so this file, which the browser's editor loads to check
 * a condition, does not load the detectors.
 */
export type DetectCheck = (names: readonly DetectorName[], context: Record<string, unknown>) => string | undefined;

const DETECTS = /^\s*detects\(\s*([^)]*?)\s*\)\s*$/;

export interface WhenCondition {
  readonly source: string;
  /** Undefined when the condition holds; otherwise the ledger's "why not". */
  check(context: Record<string, unknown>): string | undefined;
}

const WHEN = /^\s*([A-Za-z_$][\w$-]*(?:\.[\w$-]+)*)\s*(?::\s*(.*?))?\s*$/;
const REGEX_LITERAL = /^\/(.*)\/(i?)$/;

const NEGATED = /^\s*!\s*(.*)$/;

/** Whether a condition is negated (a leading `!`): what an export to a dialect that cannot negate leaves out. */
export function isNegatedWhen(source: string): boolean {
  return NEGATED.test(source);
}

/** Throws with a readable message when the condition or its regex is malformed. */
export function compileWhen(source: string, options: { detect?: DetectCheck } = {}): WhenCondition {
  const negated = NEGATED.exec(source);
  if (negated) {
    // A detector that could not run holds (below): negated, a gate would then be skipped unchecked.
    if (DETECTS.test(negated[1])) throw new Error("detects(…) cannot be negated: a detector's silence is no condition (use a detect hook, or condition the hook on what it finds)");
    if (NEGATED.test(negated[1])) throw new Error("when negates once: write the condition itself instead of !!");
    const inner = compileWhen(negated[1], options);
    return { source, check: (context) => (inner.check(context) === undefined ? `when ${source}: ${negated[1].trim()} holds` : undefined) };
  }
  const detects = DETECTS.exec(source);
  if (detects) return compileDetects(source, detects[1], options.detect);
  const parsed = WHEN.exec(source);
  if (!parsed) {
    throw new Error('when is a dot path ("metadata.shouldNotify"), "path: /regex/", "path: value" or "detects(shell.destructive)", a path form negated with a leading "!"');
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

function compileDetects(source: string, list: string, detect: DetectCheck | undefined): WhenCondition {
  const names = list.split(",").map((name) => name.trim());
  if (names.length === 0 || names.some((name) => name === "")) throw new Error("detects(…) names one or more detectors, comma-separated");
  for (const name of names) {
    if (!(DETECTOR_NAMES as readonly string[]).includes(name)) throw new Error(`unknown detector "${name}" (there are ${DETECTOR_NAMES.join(", ")})`);
    if (NOT_IN_WHEN.has(name as DetectorName)) throw new Error(`${name} cannot decide inside a condition (it reads asynchronously or needs the session's history): use a detect hook`);
  }
  return {
    source,
    // Without the detectors (a runtime that gave none), the condition holds: a gate conditioned on a
    // detector runs rather than being skipped unchecked.
    check: (context) => (detect === undefined || detect(names as DetectorName[], context) !== undefined ? undefined : `when ${source}: nothing found`),
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
