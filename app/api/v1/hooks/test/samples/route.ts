import { listRecentEvents } from "@/db/queries/event-samples";
import { findAgentOr404 } from "@/lib/features/agents/agent-service";
import { hookSamplesQuerySchema } from "@/lib/features/hooks/schema";
import { apiRoute } from "@/lib/platform/api/route";

/** Recorded events of a type from past runs, to try a hook against. */
export const GET = apiRoute({ role: "viewer", query: hookSamplesQuerySchema }, async ({ db, query, principal }) => {
  const agentId = query.agent ? (await findAgentOr404(db, principal.projectId, query.agent)).id : undefined;
  return { items: await listRecentEvents(db, { projectId: principal.projectId, type: query.event, agentId, limit: query.limit }) };
});
