import { z } from "zod";
import { listRunEventsAfter, listRunEventsTail } from "@/db/queries/run-events";
import { apiRoute } from "@/lib/platform/api/route";
import { PG_INT_MAX } from "@/lib/core/safe-input";
import { findRunOr404 } from "@/lib/features/runs/run-service";

const eventsQuerySchema = z.object({
  after: z.coerce.number().int().min(0).max(PG_INT_MAX).default(0),
  limit: z.coerce.number().int().min(1).max(5000).default(1000),
  /** Instead of paging from `after`: the last N events (a run's recent context). */
  tail: z.coerce.number().int().min(1).max(200).optional(),
});

export const GET = apiRoute({ role: "viewer", query: eventsQuerySchema }, async ({ db, params, query, principal }) => {
  // The run is read in the caller's project first: its events are reached only through it.
  await findRunOr404(db, principal.projectId, params.id);
  if (query.tail) return { items: await listRunEventsTail(db, { runId: params.id, limit: query.tail }), nextAfter: null };
  const items = await listRunEventsAfter(db, { runId: params.id, after: query.after, limit: query.limit });
  return { items, nextAfter: items.length === query.limit ? items[items.length - 1].seq : null };
});
