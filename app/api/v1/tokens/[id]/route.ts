import { z } from "zod";
import { ApiError } from "@/lib/api/errors";
import { apiRoute, parseWith } from "@/lib/api/route";
import { revokeApiTokenAudited } from "@/lib/auth/account-service";

const paramsSchema = z.object({ id: z.uuid("unknown token") });

export const DELETE = apiRoute({ role: "admin" }, async ({ db, params, principal }) => {
  const { id } = parseWith(paramsSchema, params);
  if (!(await revokeApiTokenAudited(db, principal, { id }))) throw ApiError.notFound("Active token");
  return { ok: true };
});
