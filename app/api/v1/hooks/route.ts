import { hookListKey, hookToResource, listHooks, type HookListKey } from "@/db/queries/hooks";
import { decodeCursor, paginate } from "@/lib/api/cursor";
import { ApiError } from "@/lib/api/errors";
import { apiRoute } from "@/lib/api/route";
import { hookBodySchema, hookListQuerySchema, isUuid } from "@/lib/hooks-config/hook-requests";
import { resolveHookScope } from "@/lib/hooks-config/hook-scope";
import { createHookAudited } from "@/lib/hooks-config/hook-service";

function listCursor(cursor: string | undefined): HookListKey | undefined {
  if (!cursor) return undefined;
  const key = decodeCursor<unknown>(cursor);
  const valid =
    Array.isArray(key) &&
    key.length === 4 &&
    Number.isInteger(key[0]) &&
    typeof key[1] === "string" &&
    Number.isInteger(key[2]) &&
    typeof key[3] === "string" &&
    isUuid(key[3]);
  if (!valid) throw ApiError.badRequest("cursor is not one this list returned; start again without it");
  return key as HookListKey;
}

/** Hooks in execution order: global, then agents, then schedules; within a scope, by position. */
export const GET = apiRoute({ role: "viewer", query: hookListQuerySchema }, async ({ db, query }) => {
  const scope = query.scope ? await resolveHookScope(db, query.scope) : undefined;
  const rows = await listHooks(db, { scope, event: query.event, after: listCursor(query.cursor), limit: query.limit + 1 });
  const page = paginate(rows, query.limit, hookListKey);
  return { items: page.items.map(hookToResource), nextCursor: page.nextCursor };
});

export const POST = apiRoute({ role: "operator", body: hookBodySchema }, async ({ db, body, principal }) =>
  Response.json(await createHookAudited(db, principal, body), { status: 201 }),
);
