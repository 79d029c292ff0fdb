/**
 * The wrapper every route handler goes through: refuse writes from other origins, authenticate,
 * check the role, read and validate the body, query and path with zod, call, and map every error
 * to api.md's JSON shape. Answers are never cached (they are private, and some carry a token).
 * Bad input is a 4xx, never a 500: the body is counted as it streams in (413 past the cap), JSON
 * nested too deep is refused before it is parsed, and text the database cannot store (NUL, lone
 * surrogates) is a 422 at its path whatever the route's own schema says. A database outage is a
 * 503 `database_unavailable` with Retry-After, never a hang: the pool fails fast (db/postgres-pool.ts).
 */
import type { z } from "zod";
import { getDatabase, type Db } from "@/db/client";
import { isDatabaseUnavailable } from "@/db/database-unavailable";
import { bearerToken, principalFromHeaders, readCookie, SESSION_COOKIE } from "@/lib/platform/auth/principal";
import { accessRefusal, principalHas, type Access, type Principal } from "@/lib/platform/auth/roles";
import { logger } from "@/lib/platform/logger";
import { originVerdict } from "@/lib/platform/security/same-origin";
import { AppError, databaseUnavailable, validationError } from "./app-error";
import { jsonDepthExceeds, MAX_JSON_DEPTH, unsafeInputIssues } from "@/lib/core/safe-input";

export const MAX_BODY_BYTES = 1024 * 1024;

interface RouteOptions<B extends z.ZodType | undefined, Q extends z.ZodType | undefined, P extends z.ZodType | undefined> {
  /** Minimum role in the request's project, `instance` for an instance admin; `null` for public routes. */
  role: Access | null;
  body?: B;
  query?: Q;
  /** The path's `[segments]`; a value that fails it names nothing, so the answer is a 404. */
  params?: P;
}

export interface RouteContext<B, Q, P = Record<string, string>> {
  request: Request;
  db: Db;
  principal: Principal;
  body: B;
  query: Q;
  params: P;
}

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;

function tooLarge(): AppError {
  return new AppError("payload_too_large", `Body is larger than ${MAX_BODY_BYTES} bytes`);
}

/**
 * Bodies read already by whoever made the request (route-server.ts, from node:http: the request
 * guard held them whole), so the web Request carries none: no body stream is made only to be read
 * back (a stream per hook call was a tenth of the hook path's CPU).
 */
const bufferedBodies = new WeakMap<Request, Buffer>();

/** A Request whose body is `body` as read already (see bufferedBodies). */
export function requestWithBody(request: Request, body: Buffer): Request {
  bufferedBodies.set(request, body);
  return request;
}

/** The body as text, counted chunk by chunk: reading stops at the cap, whatever the client declared. */
async function readCappedText(request: Request): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const buffered = bufferedBodies.get(request);
  if (buffered) {
    if (buffered.length > MAX_BODY_BYTES) throw tooLarge();
    return buffered.toString("utf8");
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The body parsed and found storable (assertStorable), walking its values only when that can find
 * something: text decoded from UTF-8 holds no lone surrogate (the decoder replaces one with U+FFFD)
 * and JSON allows no raw NUL, so only a `\u` escape can bring either in, and the depth is checked
 * on the text. Every hook call has a body; most have no escape.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const text = await readCappedText(request);
  if (!text.trim()) return {};
  if (jsonDepthExceeds(text)) throw AppError.badRequest(`Body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw AppError.badRequest(`Body is not valid JSON: ${(error as Error).message}`);
  }
  if (text.includes("\\u")) assertStorable(value);
  return value;
}

/** Refuses text the database cannot store anywhere in `value`, naming its path. */
export function assertStorable(value: unknown): void {
  const issues = unsafeInputIssues(value);
  if (issues.length > 0) throw AppError.invalid(issues);
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error);
  return result.data;
}

export async function requirePrincipal(db: Db, request: Request, access: Access): Promise<Principal> {
  const principal = await principalFromHeaders(db, request.headers);
  if (!principal) throw AppError.unauthorized();
  if (!principalHas(principal, access)) throw AppError.forbidden(accessRefusal(principal, access));
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
  if (verdict === "foreign") throw new AppError("cross_origin", "Cross-origin request refused: use the dashboard, or a Bearer token from a script");
  if (readCookie(request.headers.get("cookie"), SESSION_COOKIE) === undefined) return;
  if (verdict !== "same") throw new AppError("cross_origin", "A request signed in with the session cookie must come from the dashboard (no Origin header was sent)");
  const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (type !== "application/json") throw new AppError("unsupported_media_type", "Send the body as application/json");
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
  if (error instanceof AppError) return error.toResponse();
  if (isDatabaseUnavailable(error)) {
    // The outage itself is logged once by the pool (db/client.ts), not once per request.
    logger.debug({ err: error }, "API call refused: the database is unavailable");
    return databaseUnavailable().toResponse();
  }
  logger.error({ err: error }, "unhandled API error");
  return new AppError("internal", "Something went wrong on our side; it has been logged").toResponse();
}

/** A public route's caller: in no project (a public route reads nothing a project owns). */
const ANONYMOUS: Principal = { kind: "user", id: "anonymous", label: "anonymous", role: "viewer", projectId: "", projectSlug: "", instanceAdmin: false };

/** The schemas a route declared, readable from its handler (the hostile-input fuzz suite generates from them). */
export interface RouteSchemas {
  role: Access | null;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
}
/** A route's answer before it is a web Response: a value to send as JSON (with headers of its own), or a Response the route made (errors included). */
export type RouteAnswer = Response | { json: unknown; headers?: Record<string, string> };

/** A handler's JSON answer with headers beside it, still written without a web Response on the direct path. */
export class JsonAnswer {
  constructor(
    readonly json: unknown,
    readonly headers: Record<string, string>,
  ) {}
}

export type ApiHandler = ((request: Request, context?: { params?: Promise<Record<string, string>> }) => Promise<Response>) & {
  schemas: RouteSchemas;
  /** The same route, answering without a web Response where it can (route-server.ts writes the JSON itself). */
  answer: (request: Request, context?: { params?: Promise<Record<string, string>> }) => Promise<RouteAnswer>;
};

export function apiRoute<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
>(
  options: RouteOptions<B, Q, P>,
  handler: (ctx: RouteContext<Infer<B>, Infer<Q>, P extends z.ZodType ? z.infer<P> : Record<string, string>>) => Promise<Response | unknown>,
): ApiHandler {
  const answer = async (request: Request, context?: { params?: Promise<Record<string, string>> }): Promise<RouteAnswer> => {
    try {
      assertOwnOriginWrite(request);
      const handle = await getDatabase();
      // Known down: answer now rather than queue behind connections that cannot connect.
      if (!handle.available()) throw databaseUnavailable();
      const db = handle.db;
      const principal = options.role ? await requirePrincipal(db, request, options.role) : ANONYMOUS;
      const rawParams = (await context?.params) ?? {};
      assertStorable(rawParams);
      const params = options.params ? parseParams(options.params, rawParams) : rawParams;
      // Most calls (every hook call) have no query: no URL to parse for one.
      const rawQuery = request.url.includes("?") ? Object.fromEntries(new URL(request.url).searchParams) : {};
      assertStorable(rawQuery);
      const query = options.query ? parseWith(options.query, rawQuery) : undefined;
      let body: unknown;
      if (options.body) {
        body = parseWith(options.body, await readJsonBody(request));
      }
      const result = await handler({ request, db, principal, body: body as Infer<B>, query: query as Infer<Q>, params: params as never });
      return result instanceof Response ? noStore(result) : result instanceof JsonAnswer ? result : { json: result };
    } catch (error) {
      return noStore(toErrorResponse(error));
    }
  };
  const route = async (request: Request, context?: { params?: Promise<Record<string, string>> }): Promise<Response> => {
    const out = await answer(request, context);
    return out instanceof Response ? out : noStore(Response.json(out.json, out.headers && { headers: out.headers }));
  };
  return Object.assign(route, { schemas: { role: options.role, body: options.body, query: options.query, params: options.params }, answer });
}

function parseParams(schema: z.ZodType, params: Record<string, string>): unknown {
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  const error = validationError(result.error);
  throw new AppError("not_found", `Nothing at this path: ${error.message}`, error.issues);
}
