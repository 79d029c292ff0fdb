import { z } from "zod";
import { listAudit } from "@/db/queries/audit";
import { paginate } from "@/lib/platform/api/cursor";
import { listQuerySchema, serialKeySchema } from "@/lib/platform/api/list-query";
import { pgDateSchema } from "@/lib/core/safe-input";
import { AppError } from "@/lib/platform/api/app-error";
import { apiRoute } from "@/lib/platform/api/route";

/** The config change log: who changed what, with the before and after values. */
const auditQuerySchema = listQuerySchema(serialKeySchema).extend({
  entityType: z.string().max(100).optional(),
  entityId: z.string().max(200).optional(),
  actor: z.string().max(200).optional(),
  action: z.string().max(100).optional(),
  from: pgDateSchema.optional(),
  to: pgDateSchema.optional(),
  /** `instance`: the instance-level entries (people, projects, providers, instance settings and hooks), for instance admins. */
  scope: z.enum(["project", "instance"]).default("project"),
});

/** The project's entries; `?scope=instance` the instance's own (instance admins only). */
export const GET = apiRoute({ role: "viewer", query: auditQuerySchema }, async ({ db, query, principal }) => {
  const { limit, cursor, scope, ...filters } = query;
  if (scope === "instance" && !principal.instanceAdmin) throw AppError.forbidden("The instance-level audit entries are for instance admins");
  const projectId = scope === "instance" ? null : principal.projectId;
  const rows = await listAudit(db, { ...filters, projectId, limit: limit + 1, beforeId: cursor?.id });
  return paginate(rows, limit, (r) => ({ id: r.id }));
});
