/**
 * The wrapper every route handler goes through: authenticate, check the role, read and validate
 * the body and query with zod, call, and map every error to api.md's JSON shape.
 * Bad input is a 4xx, never a 500.
 */
import type { z } from "zod";
import { getDatabase, type Db } from "@/db/client";
import type { Role } from "@/db/schema";
import { principalFromHeaders } from "@/lib/auth/principal";
import { roleAtLeast, type Principal } from "@/lib/auth/roles";
import { logger } from "@/lib/logger";
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
      const db = (await getDatabase()).db;
      const principal = options.role ? await requirePrincipal(db, request, options.role) : ANONYMOUS;
      const url = new URL(request.url);
      const query = options.query ? parseWith(options.query, Object.fromEntries(url.searchParams)) : undefined;
      const body = options.body ? parseWith(options.body, await readJsonBody(request)) : undefined;
      const params = (await context?.params) ?? {};
      const result = await handler({ request, db, principal, body: body as Infer<B>, query: query as Infer<Q>, params });
      return result instanceof Response ? result : Response.json(result);
    } catch (error) {
      return toErrorResponse(error);
    }
  };
}
