import { hookListKey, hookToResource, listHooks } from "@/db/queries/hooks";
import { paginate } from "@/lib/platform/api/cursor";
import { apiRoute } from "@/lib/platform/api/route";
import { hookBodySchema, hookListQuerySchema, hookOwnerQuerySchema } from "@/lib/features/hooks/schema";
import { resolveHookScope } from "@/lib/features/hooks/hook-scope";
import { createHookAudited } from "@/lib/features/hooks/hook-service";
import { loadEnforcementContext, withEnforcement } from "@/lib/features/hooks/hook-enforcement";

/**
 * Hooks in execution order: the instance-wide ones (`instance: true`), then the project's global,
 * agents', schedules'; within a scope, by position. `?instance=true` lists only the instance-wide
 * ones, `?instance=false` only the project's own.
 */
export const GET = apiRoute({ role: "viewer", query: hookListQuerySchema }, async ({ db, query, principal }) => {
  const owner = query.instance ? null : principal.projectId;
  const scope = query.scope ? await resolveHookScope(db, { projectId: owner, scope: query.scope }) : undefined;
  const rows = await listHooks(db, {
    projectId: owner,
    own: query.instance === false,
    scope,
    event: query.event,
    after: query.cursor,
    limit: query.limit + 1,
  });
  const page = paginate(rows, query.limit, hookListKey);
  const enforcement = await loadEnforcementContext(db, principal.projectId);
  return { items: page.items.map((row) => withEnforcement(hookToResource(row), enforcement)), nextCursor: page.nextCursor };
});

/** A hook of the project; `?instance=true`: an instance-wide one (instance admins only). */
export const POST = apiRoute({ role: "operator", body: hookBodySchema, query: hookOwnerQuerySchema }, async ({ db, body, query, principal }) =>
  Response.json(await createHookAudited(db, principal, body, { instance: query.instance }), { status: 201 }),
);
