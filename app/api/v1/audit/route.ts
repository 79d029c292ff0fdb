import { z } from "zod";
import { listAudit } from "@/db/queries/audit";
import { paginate } from "@/lib/platform/api/cursor";
import { listQuerySchema, serialKeySchema } from "@/lib/platform/api/list-query";
import { pgDateSchema } from "@/lib/core/safe-input";
import { apiRoute } from "@/lib/platform/api/route";

/** The config change log: who changed what, with the before and after values. */
const auditQuerySchema = listQuerySchema(serialKeySchema).extend({
  entityType: z.string().max(100).optional(),
  entityId: z.string().max(200).optional(),
  actor: z.string().max(200).optional(),
  action: z.string().max(100).optional(),
  from: pgDateSchema.optional(),
  to: pgDateSchema.optional(),
});

export const GET = apiRoute({ role: "viewer", query: auditQuerySchema }, async ({ db, query }) => {
  const { limit, cursor, ...filters } = query;
  const rows = await listAudit(db, { ...filters, limit: limit + 1, beforeId: cursor?.id });
  return paginate(rows, limit, (r) => ({ id: r.id }));
});
