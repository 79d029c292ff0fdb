import { z } from "zod";
import { listRecentEvents } from "@/db/queries/event-samples";
import { findAgentOr404 } from "@/lib/features/agents/agent-service";
import { apiRoute } from "@/lib/platform/api/route";
import { EVENT_NAMES } from "@/lib/core/hooks/events";

const samplesQuerySchema = z.object({
  event: z.enum(EVENT_NAMES as [string, ...string[]]),
  agent: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** Recorded events of a type from past runs, to try a hook against. */
export const GET = apiRoute({ role: "viewer", query: samplesQuerySchema }, async ({ db, query, principal }) => {
  const agentId = query.agent ? (await findAgentOr404(db, principal.projectId, query.agent)).id : undefined;
  return { items: await listRecentEvents(db, { projectId: principal.projectId, type: query.event, agentId, limit: query.limit }) };
});
