import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { apiRoute } from "@/lib/platform/api/route";
import { findRunOr404 } from "@/lib/features/runs/run-service";

export const GET = apiRoute({ role: "viewer" }, async ({ db, params, principal }) => {
  await findRunOr404(db, principal.projectId, params.id);
  return { items: await listRunHookInvocations(db, { runId: params.id }) };
});
