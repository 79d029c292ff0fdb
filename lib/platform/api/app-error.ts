/**
 * The one typed error of the application. A route answers it as `{error: {code, message,
 * issues?}}` with the code's status (docs/api.md); a server action shows its message and the
 * issues at their fields. Anything else thrown is unexpected: a logged 500, or "something went
 * wrong" in a form.
 */
import type { z } from "zod";
import { zodIssues, type Issue } from "@/lib/core/issues";

/** Every code the application answers with, and its HTTP status. */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  forbidden: 403,
  cross_origin: 403,
  password_sign_in_off: 403,
  not_found: 404,
  conflict: 409,
  daily_budget_exceeded: 409,
  expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  invalid_config: 422,
  cannot_export: 422,
  not_replayable: 422,
  too_many_attempts: 429,
  // The device authorization grant's own answers to a polling CLI (RFC 8628 §3.5).
  authorization_pending: 400,
  slow_down: 400,
  access_denied: 403,
  expired_token: 400,
  invalid_grant: 400,
  internal: 500,
  database_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: Issue[],
    /** Extra response headers (`Retry-After`). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toResponse(): Response {
    const body = { error: { code: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}) } };
    return Response.json(body, { status: this.status, headers: this.headers });
  }

  static badRequest(message: string) {
    return new AppError("bad_request", message);
  }
  static unauthorized(message = "Sign in or send a bearer token") {
    return new AppError("unauthorized", message);
  }
  static forbidden(message = "Your role does not allow this") {
    return new AppError("forbidden", message);
  }
  static notFound(what: string) {
    return new AppError("not_found", `${what} not found`);
  }
  static conflict(message: string) {
    return new AppError("conflict", message);
  }
  /** 422 whose message names the first problem's path; every problem is in `issues`. */
  static invalid(issues: Issue[], code: ErrorCode = "validation_failed") {
    const first = issues[0];
    return new AppError(code, first ? `${first.path}: ${first.message}` : "Invalid input", issues);
  }
}

/** What a 503 of an outage tells the client: about the time the probe needs to see the database back. */
export const DATABASE_RETRY_AFTER_S = 5;

/** An outage of the database: it heals by itself, so the client is told when to come back. */
export function databaseUnavailable(): AppError {
  return new AppError("database_unavailable", "The database is unavailable; try again in a few seconds", undefined, {
    "retry-after": String(DATABASE_RETRY_AFTER_S),
  });
}

export function validationError(error: z.ZodError): AppError {
  return AppError.invalid(zodIssues(error));
}
