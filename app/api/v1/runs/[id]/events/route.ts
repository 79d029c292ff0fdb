import { listRunEventsAfter, listRunEventsTail } from "@/db/queries/run-events";
import { apiRoute } from "@/lib/platform/api/route";
import { findRunOr404 } from "@/lib/features/runs/run-service";
import { runEventsQuerySchema } from "@/lib/features/runs/schema";

export const GET = apiRoute({ role: "viewer", query: runEventsQuerySchema }, async ({ db, params, query, principal }) => {
  // The run is read in the caller's project first: its events are reached only through it.
  await findRunOr404(db, principal.projectId, params.id);
  if (query.tail) return { items: await listRunEventsTail(db, { runId: params.id, limit: query.tail }), nextAfter: null };
  const items = await listRunEventsAfter(db, { runId: params.id, after: query.after, limit: query.limit });
  return { items, nextAfter: items.length === query.limit ? items[items.length - 1].seq : null };
});
