import { z } from "zod";
import { AppError } from "@/lib/platform/api/app-error";
import { apiRoute } from "@/lib/platform/api/route";
import { uuidSchema } from "@/lib/core/safe-input";
import { revokeApiTokenAudited } from "@/lib/platform/auth/account-service";

export const DELETE = apiRoute({ role: "admin", params: z.object({ id: uuidSchema }) }, async ({ db, params, principal }) => {
  if (!(await revokeApiTokenAudited(db, principal, { id: params.id }))) throw AppError.notFound("Active token");
  return { ok: true };
});
