import { z } from "zod";
import { apiRoute, parseWith } from "@/lib/platform/api/route";
import { removeUserAudited } from "@/lib/platform/auth/user-service";

const paramsSchema = z.object({ id: z.uuid("unknown user") });

/** Removes a user: sessions end, tokens are revoked, open sockets close (user-service.ts). */
export const DELETE = apiRoute({ role: "admin" }, async ({ db, params, principal }) => {
  const { id } = parseWith(paramsSchema, params);
  await removeUserAudited(db, principal, { id });
  return new Response(null, { status: 204 });
});
