import { listHookVersions } from "@/db/queries/hooks";
import { paginate } from "@/lib/platform/api/cursor";
import { apiRoute } from "@/lib/platform/api/route";
import { hookVersionsQuerySchema } from "@/lib/features/hooks/schema";
import { findHookOr404 } from "@/lib/features/hooks/hook-service";

export const GET = apiRoute({ role: "viewer", query: hookVersionsQuerySchema }, async ({ db, params, query, principal }) => {
  const hook = await findHookOr404(db, principal, params.id);
  const rows = await listHookVersions(db, {
    hookId: hook.id,
    limit: query.limit + 1,
    beforeVersion: query.cursor,
  });
  return paginate(rows, query.limit, (row) => row.version);
});
