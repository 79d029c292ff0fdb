import { runToApi } from "@/db/queries/runs";
import { apiRoute } from "@/lib/platform/api/route";
import { deleteRunAudited, findRunOr404 } from "@/lib/features/runs/run-service";

export const GET = apiRoute({ role: "viewer" }, async ({ db, params, principal }) => runToApi(await findRunOr404(db, principal.projectId, params.id)));

/** Admins only: the run, its events, transcript, approvals and ledger rows go, with an audit row. */
export const DELETE = apiRoute({ role: "admin" }, async ({ db, params, principal }) => {
  await deleteRunAudited(db, principal, params.id);
  return new Response(null, { status: 204 });
});
