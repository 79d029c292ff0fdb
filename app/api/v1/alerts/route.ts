import { apiRoute } from "@/lib/platform/api/route";
import { alertRuleSchema } from "@/lib/features/alerts/alert-rules";
import { createAlertRuleAudited, listAlertRulesForApi } from "@/lib/features/alerts/alert-service";

export const GET = apiRoute({ role: "viewer" }, async ({ db, principal }) => ({ items: await listAlertRulesForApi(db, principal.projectId), nextCursor: null }));

export const POST = apiRoute({ role: "admin", body: alertRuleSchema }, async ({ db, body, principal }) =>
  Response.json(await createAlertRuleAudited(db, principal, body), { status: 201 }),
);
