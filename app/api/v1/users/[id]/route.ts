import { z } from "zod";
import { apiRoute, parseWith } from "@/lib/platform/api/route";
import { removeUserAudited, setUserSlackIdAudited, slackIdChangeSchema } from "@/lib/platform/auth/user-service";

const paramsSchema = z.object({ id: z.uuid("unknown user") });

/** Removes a user: sessions end, tokens are revoked, open sockets close (user-service.ts). */
export const DELETE = apiRoute({ role: "admin" }, async ({ db, params, principal }) => {
  const { id } = parseWith(paramsSchema, params);
  await removeUserAudited(db, principal, { id });
  return new Response(null, { status: 204 });
});

/** Links a user's Slack account (their member id) for the Slack approval buttons; null unlinks. */
export const PATCH = apiRoute({ role: "admin", body: slackIdChangeSchema.omit({ id: true }) }, async ({ db, params, body, principal }) => {
  const { id } = parseWith(paramsSchema, params);
  return setUserSlackIdAudited(db, principal, { id, slackUserId: body.slackUserId });
});
