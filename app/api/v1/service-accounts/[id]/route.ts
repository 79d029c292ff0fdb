import { z } from "zod";
import { uuidSchema } from "@/lib/core/safe-input";
import { apiRoute } from "@/lib/platform/api/route";
import { deleteServiceAccountAudited } from "@/lib/platform/auth/service-accounts";

/** Deletes the service account and its tokens, refused from their next call on. */
export const DELETE = apiRoute({ role: "admin", params: z.object({ id: uuidSchema }) }, async ({ db, params, principal }) => {
  await deleteServiceAccountAudited(db, principal, { id: params.id });
  return { ok: true };
});
