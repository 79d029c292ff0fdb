import { z } from "zod";
import { uuidSchema } from "@/lib/core/safe-input";
import { AppError } from "@/lib/platform/api/app-error";
import { apiRoute } from "@/lib/platform/api/route";
import { revokeOwnBridgeCredential } from "@/lib/platform/auth/bridge-credentials";

/** Revokes one of the signed-in person's bridge credentials. */
export const DELETE = apiRoute({ role: "viewer", params: z.object({ id: uuidSchema }) }, async ({ db, params, principal }) => {
  if (!(await revokeOwnBridgeCredential(db, principal, { id: params.id }))) throw AppError.notFound("Active bridge credential of yours");
  return { ok: true };
});
