import { agentToSpec, listAgents } from "@/db/queries/agents";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { createAgentAudited } from "@/lib/features/agents/agent-service";
import { paginate } from "@/lib/platform/api/cursor";
import { listQuerySchema } from "@/lib/platform/api/list-query";
import { apiRoute } from "@/lib/platform/api/route";
import { agentNameSchema } from "@/lib/core/agent/agent-spec";

/** Pages by name; the cursor is the last name seen. */
const agentsQuerySchema = listQuerySchema(agentNameSchema);

export const GET = apiRoute({ role: "viewer", query: agentsQuerySchema }, async ({ db, query, principal }) => {
  const rows = await listAgents(db, { projectId: principal.projectId, limit: query.limit + 1, afterName: query.cursor });
  const page = paginate(rows, query.limit, (row) => row.name);
  return { items: page.items.map(agentToSpec), nextCursor: page.nextCursor };
});

export const POST = apiRoute({ role: "operator", body: agentSpecSchema }, async ({ db, body, principal }) =>
  Response.json(await createAgentAudited(db, principal, body), { status: 201 }),
);
