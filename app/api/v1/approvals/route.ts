import { listApprovals } from "@/db/queries/approvals";
import { paginate } from "@/lib/platform/api/cursor";
import { apiRoute } from "@/lib/platform/api/route";
import { userIdOfPerson } from "@/lib/platform/auth/person-reference";
import { approvalsQuerySchema } from "@/lib/features/approvals/schema";

export const GET = apiRoute({ role: "viewer", query: approvalsQuerySchema }, async ({ db, query, principal }) => {
  const rows = await listApprovals(db, {
    projectId: principal.projectId,
    status: query.status,
    limit: query.limit + 1,
    before: query.cursor,
    ...(query.actor && { actorUserId: await userIdOfPerson(db, query.actor) }),
  });
  const page = paginate(rows, query.limit, (r) => ({ at: r.requestedAt.toISOString(), id: r.id }));
  return page;
});
