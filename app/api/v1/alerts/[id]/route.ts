import { apiRoute } from "@/lib/platform/api/route";
import { alertRulePatchSchema } from "@/lib/features/alerts/alert-rules";
import { alertRuleToApi, deleteAlertRuleAudited, findAlertRuleOr404, updateAlertRuleAudited } from "@/lib/features/alerts/alert-service";

export const GET = apiRoute({ role: "viewer" }, async ({ db, params, principal }) => alertRuleToApi(await findAlertRuleOr404(db, principal.projectId, params.id)));

export const PATCH = apiRoute({ role: "admin", body: alertRulePatchSchema }, async ({ db, params, body, principal }) =>
  updateAlertRuleAudited(db, principal, params.id, body),
);

export const DELETE = apiRoute({ role: "admin" }, async ({ db, params, principal }) => {
  await deleteAlertRuleAudited(db, principal, params.id);
  return new Response(null, { status: 204 });
});
