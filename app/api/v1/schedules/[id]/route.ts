import { apiRoute } from "@/lib/platform/api/route";
import { deleteScheduleAudited, findScheduleOr404, scheduleToApi } from "@/lib/features/schedules/schedule-service";

export const GET = apiRoute({ role: "viewer" }, async ({ db, params, principal }) =>
  scheduleToApi(await findScheduleOr404(db, principal.projectId, params.id)),
);

export const DELETE = apiRoute({ role: "operator" }, async ({ db, params, principal }) => {
  await deleteScheduleAudited(db, principal, params.id);
  return new Response(null, { status: 204 });
});
