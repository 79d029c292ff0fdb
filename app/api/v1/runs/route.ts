import { listRuns, runToApi } from "@/db/queries/runs";
import { paginate } from "@/lib/platform/api/cursor";
import { apiRoute } from "@/lib/platform/api/route";
import { resolveRunFilters } from "@/lib/features/runs/run-filters";
import { startRun } from "@/lib/features/runs/run-service";
import { runListQuerySchema, startRunSchema } from "@/lib/features/runs/schema";

export const GET = apiRoute({ role: "viewer", query: runListQuerySchema }, async ({ db, query, principal }) => {
  const { limit, cursor, ...filters } = query;
  const rows = await listRuns(db, {
    ...(await resolveRunFilters(db, principal.projectId, filters)),
    projectId: principal.projectId,
    limit: limit + 1,
    before: cursor,
  });
  const page = paginate(rows, limit, (r) => ({ createdAt: r.createdAt.toISOString(), id: r.id }));
  return { items: page.items.map(runToApi), nextCursor: page.nextCursor };
});

export const POST = apiRoute({ role: "operator", body: startRunSchema }, async ({ db, body, principal }) => {
  const run = await startRun(db, principal, body);
  return Response.json({ id: run.id, status: run.status }, { status: 202 });
});
