import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { apiRoute } from "@/lib/platform/api/route";
import { findRunOr404 } from "@/lib/features/runs/run-service";
import { runLedgerQuerySchema } from "@/lib/features/runs/schema";

export const GET = apiRoute({ role: "viewer", query: runLedgerQuerySchema }, async ({ db, params, query, principal }) => {
  await findRunOr404(db, principal.projectId, params.id);
  const items = await listRunHookInvocations(db, { runId: params.id, after: query.after, limit: query.limit });
  return { items, nextAfter: query.limit !== undefined && items.length === query.limit ? items[items.length - 1].id : null };
});
