import { agentToSpec } from "@/db/queries/agents";
import { deleteAgentAudited, findAgentOr404, updateAgentAudited } from "@/lib/features/agents/agent-service";
import { agentPatchSchema } from "@/lib/features/agents/schema";
import { apiRoute } from "@/lib/platform/api/route";

export const GET = apiRoute({ role: "viewer" }, async ({ db, params, principal }) =>
  agentToSpec(await findAgentOr404(db, principal.projectId, params.id)),
);

export const PATCH = apiRoute({ role: "operator", body: agentPatchSchema }, async ({ db, params, body, principal }) =>
  updateAgentAudited(db, principal, params.id, body),
);

export const DELETE = apiRoute({ role: "operator" }, async ({ db, params, principal }) => {
  await deleteAgentAudited(db, principal, params.id);
  return new Response(null, { status: 204 });
});
