import { z } from "zod";
import { uuidSchema } from "@/lib/core/safe-input";
import { apiRoute } from "@/lib/platform/api/route";
import { grantSelfGovernanceAudited, revokeSelfGovernanceAudited } from "@/lib/platform/auth/own-governance";

const params = z.object({ userId: uuidSchema });

/** Grants a named person (never oneself: 403) the right to change the rules over their own coding agents here. */
export const PUT = apiRoute({ role: "admin", params }, async ({ db, params, principal }) => {
  await grantSelfGovernanceAudited(db, principal, { userId: params.userId });
  return { ok: true };
});

/** Takes it back: from their next change on, the rules over their own agents are someone else's. */
export const DELETE = apiRoute({ role: "admin", params }, async ({ db, params, principal }) => {
  await revokeSelfGovernanceAudited(db, principal, { userId: params.userId });
  return { ok: true };
});
