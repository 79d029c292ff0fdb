"use server";

import { z } from "zod";
import { formAction } from "@/lib/platform/api/action";
import { issueApiToken, revokeApiTokenAudited, tokenRequestSchema } from "@/lib/platform/auth/account-service";
import { changeUserRoleAudited, createUserAudited, newUserSchema, roleChangeSchema, setUserSlackIdAudited, slackIdChangeSchema } from "@/lib/platform/auth/user-service";

export const createTokenAction = formAction(
  { role: "admin", input: tokenRequestSchema, revalidate: ["/settings"] },
  async ({ db, principal, input }) => {
    const { token } = await issueApiToken(db, { ...input, userId: principal.userId, actor: principal.label });
    return { ok: true, secret: token, message: "Token created. Copy it now: it is not shown again." };
  },
);

export const revokeTokenAction = formAction(
  { role: "admin", input: z.object({ id: z.uuid("Unknown token") }), revalidate: ["/settings"] },
  async ({ db, principal, input }) => {
    await revokeApiTokenAudited(db, principal, { id: input.id });
    return { ok: true, message: "Token revoked" };
  },
);

export const createUserAction = formAction(
  { role: "admin", input: newUserSchema, revalidate: ["/settings"] },
  async ({ db, principal, input }) => {
    await createUserAudited(db, principal, input);
    return { ok: true, message: `Added ${input.email} as ${input.role}` };
  },
);

export const changeUserRoleAction = formAction(
  { role: "admin", input: roleChangeSchema, revalidate: ["/settings"] },
  async ({ db, principal, input }) => {
    const user = await changeUserRoleAudited(db, principal, input);
    return { ok: true, message: `${user.email} is now ${user.role}` };
  },
);

export const setUserSlackIdAction = formAction(
  {
    role: "admin",
    input: slackIdChangeSchema,
    revalidate: ["/settings"],
    // An empty field unlinks.
    read: (raw) => {
      const fields = raw instanceof FormData ? Object.fromEntries(raw.entries()) : raw;
      const slackUserId = typeof fields.slackUserId === "string" && fields.slackUserId.trim() !== "" ? fields.slackUserId : null;
      return { id: fields.id, slackUserId };
    },
  },
  async ({ db, principal, input }) => {
    const user = await setUserSlackIdAudited(db, principal, input);
    return { ok: true, message: user.slackUserId ? `${user.email} is Slack member ${user.slackUserId}` : `${user.email} has no Slack account linked` };
  },
);
