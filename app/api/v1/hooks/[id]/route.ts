import { hookToResource } from "@/db/queries/hooks";
import { apiRoute } from "@/lib/platform/api/route";
import { hookPatchSchema } from "@/lib/features/hooks/schema";
import { deleteHookAudited, findHookOr404, patchHookAudited } from "@/lib/features/hooks/hook-service";
import { loadEnforcementContext, withEnforcement } from "@/lib/features/hooks/hook-enforcement";

/** The hook, with `enforcement`: whether it can do what it says on this server, and why not. */
export const GET = apiRoute({ role: "viewer" }, async ({ db, params, principal }) =>
  withEnforcement(hookToResource(await findHookOr404(db, principal, params.id)), await loadEnforcementContext(db, principal.projectId)),
);

export const PATCH = apiRoute({ role: "operator", body: hookPatchSchema }, async ({ db, params, body, principal }) =>
  patchHookAudited(db, principal, params.id, body),
);

export const DELETE = apiRoute({ role: "operator" }, async ({ db, params, principal }) => {
  await deleteHookAudited(db, principal, params.id);
  return new Response(null, { status: 204 });
});
