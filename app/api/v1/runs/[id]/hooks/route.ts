import { z } from "zod";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { apiRoute } from "@/lib/platform/api/route";
import { findRunOr404 } from "@/lib/features/runs/run-service";

const ledgerQuerySchema = z.object({
  /** The id of the last row the caller has: the rows written after it. */
  after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  /** Left out: every row after `after` (as before paging existed). */
  limit: z.coerce.number().int().min(1).max(5000).optional(),
});

export const GET = apiRoute({ role: "viewer", query: ledgerQuerySchema }, async ({ db, params, query, principal }) => {
  await findRunOr404(db, principal.projectId, params.id);
  const items = await listRunHookInvocations(db, { runId: params.id, after: query.after, limit: query.limit });
  return { items, nextAfter: query.limit !== undefined && items.length === query.limit ? items[items.length - 1].id : null };
});
