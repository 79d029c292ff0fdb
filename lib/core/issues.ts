/**
 * A problem with one field of an input, located by its path (`hooks[2].matcher`): what zod finds,
 * what the edge's safety check finds, and what the API and the forms show. Pure, so the core's
 * own checks (safe input, dialect import) report in the same shape.
 */
import type { z } from "zod";

export interface Issue {
  path: string;
  message: string;
}

export function issuePath(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === "number" ? `[${p}]` : String(p))).join(".").replace(/\.\[/g, "[") || "(root)";
}

export function zodIssues(error: z.ZodError): Issue[] {
  return error.issues.map((i) => ({ path: issuePath(i.path), message: i.message }));
}

/**
 * A refinement from a check that says what is wrong with a value, or nothing: its answer is the
 * issue's message (`z.string().superRefine(issueFrom(regexError))`).
 */
export function issueFrom<T>(problem: (value: T) => string | undefined) {
  return (value: T, ctx: z.RefinementCtx<T>) => {
    const message = problem(value);
    if (message) ctx.addIssue({ code: "custom", message });
  };
}
