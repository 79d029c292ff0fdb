import { z } from "zod";
import { uuidSchema } from "@/lib/api/safe-input";
import { apiRoute } from "@/lib/api/route";
import { revokeApiTokenAudited } from "@/lib/auth/account-service";

export const DELETE = apiRoute({ role: "admin", params: z.object({ id: uuidSchema }) }, async ({ db, params, principal }) => {
  await revokeApiTokenAudited(db, { id: params.id, actor: principal.label });
  return { ok: true };
});
