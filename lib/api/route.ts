/**
 * The wrapper every route handler goes through: refuse writes from other origins, authenticate,
 * check the role, read and validate the body and query with zod, call, and map every error to
 * api.md's JSON shape. Bad input is a 4xx, never a 500. Answers are never cached (they are private,
 * and some carry a token).
 */
import type { z } from "zod";
import { getDatabase, type Db } from "@/db/client";
import type { Role } from "@/db/schema";
import { bearerToken, principalFromHeaders, readCookie, SESSION_COOKIE } from "@/lib/auth/principal";
import { roleAtLeast, type Principal } from "@/lib/auth/roles";
import { logger } from "@/lib/logger";
import { originVerdict } from "@/lib/security/same-origin";
import { ApiError, validationError } from "./errors";

export const MAX_BODY_BYTES = 1024 * 1024;

interface RouteOptions<B extends z.ZodType | undefined, Q extends z.ZodType | undefined> {
  /** Minimum role; `null` for public routes. */
  role: Role | null;
  body?: B;
  query?: Q;
}

export interface RouteContext<B, Q> {
  request: Request;
  db: Db;
  principal: Principal;
  body: B;
  query: Q;
  params: Record<string, string>;
}

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;

export async function readJsonBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) throw new ApiError(413, "payload_too_large", `Body is larger than ${MAX_BODY_BYTES} bytes`);
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) {
    throw new ApiError(413, "payload_too_large", `Body is larger than ${MAX_BODY_BYTES} bytes`);
  }
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw ApiError.badRequest(`Body is not valid JSON: ${(error as Error).message}`);
  }
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error);
  return result.data;
}

export async function requirePrincipal(db: Db, request: Request, role: Role): Promise<Principal> {
  const principal = await principalFromHeaders(db, request.headers);
  if (!principal) throw ApiError.unauthorized();
  if (!roleAtLeast(principal.role, role)) throw ApiError.forbidden(`This needs the ${role} role; you are ${principal.role}`);
  return principal;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Cross-site request forgery: a page elsewhere can make the browser send our session cookie with
 * a `no-cors` fetch or a plain form (text/plain, form-encoded), and `127.0.0.1:<other port>` counts
 * as the same site for SameSite=Lax. So a write riding the cookie must come from our own origin
 * and be JSON (which a page elsewhere cannot send without a CORS preflight we never grant). A
 * Bearer token cannot be attached by another page, so token requests are not affected. Reads
 * change nothing, and CORS keeps their answers from other origins.
 */
export function assertOwnOriginWrite(request: Request): void {
  if (SAFE_METHODS.has(request.method) || bearerToken(request.headers) !== undefined) return;
  const verdict = originVerdict(request.headers, request.url);
  if (verdict === "foreign") throw new ApiError(403, "cross_origin", "Cross-origin request refused: use the dashboard, or a Bearer token from a script");
  if (readCookie(request.headers.get("cookie"), SESSION_COOKIE) === undefined) return;
  if (verdict !== "same") throw new ApiError(403, "cross_origin", "A request signed in with the session cookie must come from the dashboard (no Origin header was sent)");
  const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (type !== "application/json") throw new ApiError(415, "unsupported_media_type", "Send the body as application/json");
}

function noStore(response: Response): Response {
  try {
    if (!response.headers.has("cache-control")) response.headers.set("cache-control", "no-store");
  } catch {
    // A response with immutable headers (Response.redirect) carries nothing private.
  }
  return response;
}

export function toErrorResponse(error: unknown): Response {
  if (error instanceof ApiError) return error.toResponse();
  logger.error({ err: error }, "unhandled API error");
  return new ApiError(500, "internal", "Something went wrong on our side; it has been logged").toResponse();
}

const ANONYMOUS: Principal = { kind: "user", id: "anonymous", label: "anonymous", role: "viewer" };

export function apiRoute<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(
  options: RouteOptions<B, Q>,
  handler: (ctx: RouteContext<Infer<B>, Infer<Q>>) => Promise<Response | unknown>,
) {
  return async (request: Request, context?: { params?: Promise<Record<string, string>> }): Promise<Response> => {
    try {
      assertOwnOriginWrite(request);
      const db = (await getDatabase()).db;
      const principal = options.role ? await requirePrincipal(db, request, options.role) : ANONYMOUS;
      const url = new URL(request.url);
      const query = options.query ? parseWith(options.query, Object.fromEntries(url.searchParams)) : undefined;
      const body = options.body ? parseWith(options.body, await readJsonBody(request)) : undefined;
      const params = (await context?.params) ?? {};
      const result = await handler({ request, db, principal, body: body as Infer<B>, query: query as Infer<Q>, params });
      return noStore(result instanceof Response ? result : Response.json(result));
    } catch (error) {
      return noStore(toErrorResponse(error));
    }
  };
}
