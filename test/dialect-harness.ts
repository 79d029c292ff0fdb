/** Shared by the dialect tests: catching the typed parse error to assert on its issues. */
import { DialectParseError } from "../lib/core/dialects/dialect-error";

export function parseError(run: () => unknown): DialectParseError {
  try {
    run();
  } catch (error) {
    if (error instanceof DialectParseError) return error;
    throw error;
  }
  throw new Error("expected a DialectParseError");
}
