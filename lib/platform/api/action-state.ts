/**
 * What a server action returns to its form: a message, per-field errors (zod paths), or success.
 * The same AppError and zod issues as the API, read by people instead of scripts.
 */
import type { z } from "zod";
import { zodIssues, type Issue } from "@/lib/core/issues";
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

/** Problems at their fields (the first one per field), the first of them in the message. */
function issuesToActionState(issues: Issue[]): ActionState {
  const fieldErrors: Record<string, string> = {};
  for (const issue of issues) fieldErrors[issue.path] ??= issue.message;
  const [path, message] = Object.entries(fieldErrors)[0] ?? ["", "Invalid input"];
  return { message: `${path}: ${message}`, fieldErrors };
}

export function zodToActionState(error: z.ZodError): ActionState {
  return issuesToActionState(zodIssues(error));
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
    return { message: error.message, fieldErrors: Object.fromEntries((error.issues ?? []).map((i) => [i.path, i.message])) };
  }
  if (isDatabaseUnavailable(error)) return { message: "The database is unavailable; nothing was saved. Try again in a few seconds." };
  // Next's redirect() throws; let it through.
  if (error && typeof error === "object" && "digest" in error && String((error as { digest: unknown }).digest).startsWith("NEXT_")) {
    throw error;
  }
  logger.error({ err: error }, "server action failed");
  return { message: "Something went wrong on our side; it has been logged." };
}
