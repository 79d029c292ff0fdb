import { z } from "zod";
import { listApprovals } from "@/db/queries/approvals";
import { APPROVAL_STATUSES } from "@/db/schema";
import { decodeCursor, paginate } from "@/lib/api/cursor";
import { listQuerySchema } from "@/lib/api/list-query";
import { apiRoute } from "@/lib/api/route";

const approvalsQuerySchema = listQuerySchema.extend({ status: z.enum(APPROVAL_STATUSES).optional() });

export const GET = apiRoute({ role: "viewer", query: approvalsQuerySchema }, async ({ db, query }) => {
  const rows = await listApprovals(db, {
    status: query.status,
    limit: query.limit + 1,
    before: decodeCursor<{ at: string; id: string }>(query.cursor),
  });
  const page = paginate(rows, query.limit, (r) => ({ at: r.requestedAt.toISOString(), id: r.id }));
  return page;
});
