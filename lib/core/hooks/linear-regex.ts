/**
 * Every pattern a hook author writes (matcher, denyIf, skipIf, when) runs on RE2 semantics through
 * re2js: matching is linear in the input, so a hostile or careless pattern cannot stall the agent
 * loop (no catastrophic backtracking, no lookaround, no backreferences).
 */
import { RE2JS } from "re2js";

export interface LinearRegex {
  readonly source: string;
  /** True when the pattern matches anywhere in the input. */
  test(input: string): boolean;
  /** True when the pattern matches the whole input. */
  testWhole(input: string): boolean;
}

const REGEX_META = /[\\^$.|?*+()[\]{}]/;

/**
 * Compiles a pattern; throws an Error whose message says what is wrong with it. A pattern without
 * metacharacters is a plain substring search (same answer as RE2, a few times faster on the hot path).
 */
export function compileLinearRegex(source: string, flags: { ignoreCase?: boolean } = {}): LinearRegex {
  if (!flags.ignoreCase && isLiteralPattern(source)) {
    return {
      source,
      test: (input) => input.includes(source),
      testWhole: (input) => input === source,
    };
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, flags.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    throw new Error(describeRegexError(error));
  }
  return { source, test: (input) => re.test(input), testWhole: (input) => re.testExact(input) };
}

/** True when a pattern has no metacharacter: it is then a plain substring search. */
export function isLiteralPattern(source: string): boolean {
  return !REGEX_META.test(source);
}

/** The compile error of a pattern, or undefined when it is valid. For schema validation. */
export function regexError(source: string): string | undefined {
  try {
    compileLinearRegex(source);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function describeRegexError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cleaned = message.replace(/^error parsing regexp:\s*/, "");
  const unsupported = /invalid or unsupported Perl syntax/.test(message)
    ? " (RE2 has no lookaround or backreferences)"
    : "";
  return `invalid regex: ${cleaned}${unsupported}`;
}
