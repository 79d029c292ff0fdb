/**
 * The one typed error of the API: every failure maps to a status and a JSON body
 * `{error: {code, message, issues?}}` (api.md). Anything unexpected becomes a logged 500.
 */
import type { z } from "zod";

export interface ApiIssue {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues?: ApiIssue[],
  ) {
    super(message);
  }

  toResponse(): Response {
    const body = { error: { code: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}) } };
    return Response.json(body, { status: this.status });
  }

  static badRequest(message: string) {
    return new ApiError(400, "bad_request", message);
  }
  static unauthorized(message = "Sign in or send a bearer token") {
    return new ApiError(401, "unauthorized", message);
  }
  static forbidden(message = "Your role does not allow this") {
    return new ApiError(403, "forbidden", message);
  }
  static notFound(what: string) {
    return new ApiError(404, "not_found", `${what} not found`);
  }
  static conflict(message: string) {
    return new ApiError(409, "conflict", message);
  }
}

export function issuePath(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === "number" ? `[${p}]` : String(p))).join(".").replace(/\.\[/g, "[") || "(root)";
}

export function zodIssues(error: z.ZodError): ApiIssue[] {
  return error.issues.map((i) => ({ path: issuePath(i.path), message: i.message }));
}

export function validationError(error: z.ZodError): ApiError {
  const issues = zodIssues(error);
  const first = issues[0];
  return new ApiError(422, "validation_failed", first ? `${first.path}: ${first.message}` : "Invalid input", issues);
}
