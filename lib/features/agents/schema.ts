/**
 * What the agents feature answers, declared once: an agent as db/queries/agents.ts `agentToSpec`
 * builds it (its spec, id and times), sent by GET /api/v1/agents and /agents/{id} and read by the
 * agent list with that type.
 */
import type { agentToSpec } from "@/db/queries/agents";
import type { Json } from "@/lib/platform/api/json";

/** One agent of GET /api/v1/agents `items`, and GET /api/v1/agents/{id}. */
export type AgentResponse = Json<ReturnType<typeof agentToSpec>>;
