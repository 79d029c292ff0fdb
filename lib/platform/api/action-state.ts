/**
 * What a server action returns to its form: a message, per-field errors (zod paths), or success.
 * The same AppError and zod issues as the API, read by people instead of scripts.
 */
import type { Issue } from "@/lib/core/issues";
import { isDatabaseUnavailable } from "@/db/database-unavailable";
import { AppError } from "@/lib/platform/api/app-error";
import { unsafeInputIssues } from "@/lib/core/safe-input";
import { logger } from "@/lib/platform/logger";

export interface ActionState {
  ok?: boolean;
  message?: string;
  fieldErrors?: Record<string, string>;
  /** Echo of a secret shown once (a new API token). */
  secret?: string;
}

/**
 * Every problem at its field: two issues at one path (too short and a bad character) are both said,
 * joined, rather than the second being dropped. The message says the one problem, or names every
 * field that has one, so nothing is only visible at a field the form may not show.
 */
export function issuesToActionState(issues: Issue[]): ActionState {
  const byPath = new Map<string, string[]>();
  for (const issue of issues) {
    const messages = byPath.get(issue.path) ?? [];
    if (!messages.includes(issue.message)) messages.push(issue.message);
    byPath.set(issue.path, messages);
  }
  const fieldErrors = Object.fromEntries([...byPath].map(([path, messages]) => [path, messages.join("; ")]));
  const entries = Object.entries(fieldErrors);
  if (entries.length === 0) return { message: "Invalid input", fieldErrors };
  if (entries.length === 1) return { message: `${entries[0][0]}: ${entries[0][1]}`, fieldErrors };
  return { message: `${entries.length} fields need a change: ${entries.map(([path]) => path).join(", ")}`, fieldErrors };
}

/**
 * The server actions' twin of apiRoute's check: text the database cannot store (NUL, lone
 * surrogates) anywhere in a form or an input object is refused at its field, before the action
 * parses it. Undefined when the input is fine.
 */
export function refuseUnsafeInput(input: unknown): ActionState | undefined {
  const issues = unsafeInputIssues(input);
  return issues.length === 0 ? undefined : issuesToActionState(issues);
}

/** Maps thrown errors to a readable state; unexpected ones are logged and said plainly. */
export function errorToActionState(error: unknown): ActionState {
  if (error instanceof AppError) {
    return { message: error.message, fieldErrors: issuesToActionState(error.issues ?? []).fieldErrors };
  }
  if (isDatabaseUnavailable(error)) return { message: "The database is unavailable; nothing was saved. Try again in a few seconds." };
  // Next's redirect() throws; let it through.
  if (error && typeof error === "object" && "digest" in error && String((error as { digest: unknown }).digest).startsWith("NEXT_")) {
    throw error;
  }
  logger.error({ err: error }, "server action failed");
  return { message: "Something went wrong on our side; it has been logged." };
}
