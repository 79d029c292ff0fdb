import { z } from "zod";
import { listApprovals } from "@/db/queries/approvals";
import { APPROVAL_STATUSES } from "@/db/schema";
import { paginate } from "@/lib/platform/api/cursor";
import { cursorTimeSchema, listQuerySchema } from "@/lib/platform/api/list-query";
import { uuidSchema } from "@/lib/core/safe-input";
import { apiRoute } from "@/lib/platform/api/route";
import { personReferenceSchema, userIdOfPerson } from "@/lib/platform/auth/person-reference";

const approvalsQuerySchema = listQuerySchema(z.object({ at: cursorTimeSchema, id: uuidSchema }).strict()).extend({
  status: z.enum(APPROVAL_STATUSES).optional(),
  /** The approvals a person's agents asked for: their user id or email. */
  actor: personReferenceSchema.optional(),
});

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
