import { z } from "zod";
import { apiRoute, parseWith } from "@/lib/platform/api/route";
import { removeUserAudited, setInstanceAdminAudited, setUserSlackIdAudited, slackIdChangeSchema } from "@/lib/platform/auth/user-service";

const paramsSchema = z.object({ id: z.uuid("unknown user") });

const patchSchema = z
  .object({ slackUserId: slackIdChangeSchema.shape.slackUserId.optional(), instanceAdmin: z.boolean().optional() })
  .refine((patch) => patch.slackUserId !== undefined || patch.instanceAdmin !== undefined, "send slackUserId or instanceAdmin");

/** Removes an account: sessions end, tokens are revoked, open sockets close (user-service.ts). */
export const DELETE = apiRoute({ role: "instance" }, async ({ db, params, principal }) => {
  const { id } = parseWith(paramsSchema, params);
  await removeUserAudited(db, principal, { id });
  return new Response(null, { status: 204 });
});

/**
 * Makes or unmakes an instance admin (never the last one), and links a person's Slack account
 * (their member id) for the Slack approval buttons; slackUserId null unlinks.
 */
export const PATCH = apiRoute({ role: "instance", body: patchSchema }, async ({ db, params, body, principal }) => {
  const { id } = parseWith(paramsSchema, params);
  let user: { id: string; email: string; instanceAdmin?: boolean; slackUserId?: string | null } | undefined;
  if (body.instanceAdmin !== undefined) user = await setInstanceAdminAudited(db, principal, { id, instanceAdmin: body.instanceAdmin });
  if (body.slackUserId !== undefined) {
    const linked = await setUserSlackIdAudited(db, principal, { id, slackUserId: body.slackUserId });
    user = { ...user, id: linked.id, email: linked.email, slackUserId: linked.slackUserId };
  }
  return user;
});
