import { z } from "zod";
import { ApiError } from "@/lib/platform/api/errors";
import { apiRoute } from "@/lib/platform/api/route";
import { uuidSchema } from "@/lib/platform/api/safe-input";
import { revokeApiTokenAudited } from "@/lib/platform/auth/account-service";

export const DELETE = apiRoute({ role: "admin", params: z.object({ id: uuidSchema }) }, async ({ db, params, principal }) => {
  if (!(await revokeApiTokenAudited(db, principal, { id: params.id }))) throw ApiError.notFound("Active token");
  return { ok: true };
});
