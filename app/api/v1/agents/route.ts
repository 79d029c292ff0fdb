import { agentToSpec, listAgents } from "@/db/queries/agents";
import { createAgentAudited } from "@/lib/features/agents/agent-service";
import { agentSpecSchema, agentsQuerySchema } from "@/lib/features/agents/schema";
import { paginate } from "@/lib/platform/api/cursor";
import { apiRoute } from "@/lib/platform/api/route";

export const GET = apiRoute({ role: "viewer", query: agentsQuerySchema }, async ({ db, query, principal }) => {
  const rows = await listAgents(db, { projectId: principal.projectId, limit: query.limit + 1, afterName: query.cursor });
  const page = paginate(rows, query.limit, (row) => row.name);
  return { items: page.items.map(agentToSpec), nextCursor: page.nextCursor };
});

export const POST = apiRoute({ role: "operator", body: agentSpecSchema }, async ({ db, body, principal }) =>
  Response.json(await createAgentAudited(db, principal, body), { status: 201 }),
);
