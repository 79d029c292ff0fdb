import { hookListKey, hookToResource, listHooks } from "@/db/queries/hooks";
import { paginate } from "@/lib/platform/api/cursor";
import { apiRoute } from "@/lib/platform/api/route";
import { hookBodySchema, hookListQuerySchema } from "@/lib/features/hooks/hook-requests";
import { resolveHookScope } from "@/lib/features/hooks/hook-scope";
import { createHookAudited } from "@/lib/features/hooks/hook-service";

/** Hooks in execution order: global, then agents, then schedules; within a scope, by position. */
export const GET = apiRoute({ role: "viewer", query: hookListQuerySchema }, async ({ db, query }) => {
  const scope = query.scope ? await resolveHookScope(db, query.scope) : undefined;
  const rows = await listHooks(db, { scope, event: query.event, after: query.cursor, limit: query.limit + 1 });
  const page = paginate(rows, query.limit, hookListKey);
  return { items: page.items.map(hookToResource), nextCursor: page.nextCursor };
});

export const POST = apiRoute({ role: "operator", body: hookBodySchema }, async ({ db, body, principal }) =>
  Response.json(await createHookAudited(db, principal, body), { status: 201 }),
);
