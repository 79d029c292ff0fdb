import { listAudit } from "@/db/queries/audit";
import { paginate } from "@/lib/platform/api/cursor";
import { AppError } from "@/lib/platform/api/app-error";
import { apiRoute } from "@/lib/platform/api/route";
import { auditQuerySchema } from "@/lib/features/audit/schema";

/**
 * The config change log, who changed what with the before and after values: the project's
 * entries; `?scope=instance` the instance's own (instance admins only).
 */
export const GET = apiRoute({ role: "viewer", query: auditQuerySchema }, async ({ db, query, principal }) => {
  const { limit, cursor, scope, ...filters } = query;
  if (scope === "instance" && !principal.instanceAdmin) throw AppError.forbidden("The instance-level audit entries are for instance admins");
  const projectId = scope === "instance" ? null : principal.projectId;
  const rows = await listAudit(db, { ...filters, projectId, limit: limit + 1, beforeId: cursor?.id });
  return paginate(rows, limit, (r) => ({ id: r.id }));
});
