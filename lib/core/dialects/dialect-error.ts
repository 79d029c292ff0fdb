/**
 * Typed failures of the dialect layer. The config import endpoint turns a DialectParseError into
 * a 422 whose `issues` carry the same paths, so a user can find the offending line or field.
 */
import type { DialectName } from "./types";

export type DialectIssue = {
  /** Path into the source, like `hooks.PreToolUse[0].hooks[1].timeout`; "" for the document itself. */
  path: string;
  message: string;
  /** 1-based position for syntax errors, when the parser knows it. */
  line?: number;
  column?: number;
};

export class DialectParseError extends Error {
  readonly name = "DialectParseError";

  constructor(
    readonly dialect: DialectName,
    readonly issues: DialectIssue[],
  ) {
    super(
      `${dialect} config is invalid: ` +
        issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "),
    );
  }
}

/** An export that cannot be written at all (as opposed to one that loses details: those are warnings). */
export class DialectExportError extends Error {
  readonly name = "DialectExportError";

  constructor(
    readonly dialect: DialectName,
    message: string,
  ) {
    super(`${dialect} export: ${message}`);
  }
}
