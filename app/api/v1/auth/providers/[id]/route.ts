import { z } from "zod";
import { apiRoute } from "@/lib/platform/api/route";
import { getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { providerPatchSchema } from "@/lib/features/sso/provider-schema";
import { deleteProviderAudited, updateProviderAudited } from "@/lib/features/sso/provider-service";

const params = z.object({ id: z.uuid("unknown provider") });

/** Changes what is sent; `clientSecret` replaces the stored secret (which is never returned). */
export const PATCH = apiRoute({ role: "instance", params, body: providerPatchSchema }, async ({ db, params, body, principal }) =>
  updateProviderAudited(db, getSecretBox(), principal, params.id, body),
);

/** Deletes the provider and ends the sessions opened through it. */
export const DELETE = apiRoute({ role: "instance", params }, async ({ db, params, principal }) => {
  await deleteProviderAudited(db, principal, params.id);
  return new Response(null, { status: 204 });
});
