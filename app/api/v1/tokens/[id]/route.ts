import { z } from "zod";
import { ApiError } from "@/lib/api/errors";
import { apiRoute } from "@/lib/api/route";
import { uuidSchema } from "@/lib/api/safe-input";
import { revokeApiTokenAudited } from "@/lib/auth/account-service";

export const DELETE = apiRoute({ role: "admin", params: z.object({ id: uuidSchema }) }, async ({ db, params, principal }) => {
  if (!(await revokeApiTokenAudited(db, principal, { id: params.id }))) throw ApiError.notFound("Active token");
  return { ok: true };
});
