import { apiRoute } from "@/lib/platform/api/route";
import { listQuerySchema, serialKeySchema } from "@/lib/platform/api/list-query";
import { listAlertEventsForApi } from "@/lib/features/alerts/alert-service";

/** The rule's firings, reminders and resolutions, newest first. */
export const GET = apiRoute({ role: "viewer", query: listQuerySchema(serialKeySchema) }, async ({ db, params, query, principal }) =>
  listAlertEventsForApi(db, principal.projectId, params.id, { limit: query.limit, cursor: query.cursor }),
);
