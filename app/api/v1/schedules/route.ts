import { apiRoute } from "@/lib/platform/api/route";
import { createScheduleAudited, listSchedulesForApi, scheduleRequestSchema } from "@/lib/features/schedules/schedule-service";

export const GET = apiRoute({ role: "viewer" }, async ({ db, principal }) => ({ items: await listSchedulesForApi(db, principal.projectId), nextCursor: null }));

export const POST = apiRoute({ role: "operator", body: scheduleRequestSchema }, async ({ db, body, principal }) =>
  Response.json(await createScheduleAudited(db, principal, body), { status: 201 }),
);
