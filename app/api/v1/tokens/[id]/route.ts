import { logAudit } from "@/db/queries/audit";
import { revokeApiToken } from "@/db/queries/api-tokens";
import { ApiError } from "@/lib/api/errors";
import { apiRoute } from "@/lib/api/route";

export const DELETE = apiRoute({ role: "admin" }, async ({ db, params, principal }) => {
  const row = await revokeApiToken(db, { id: params.id });
  if (!row) throw ApiError.notFound("Active token");
  await logAudit(db, { actor: principal.label, action: "token.revoke", entityType: "api_token", entityId: row.id });
  return { ok: true };
});
