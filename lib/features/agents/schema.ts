/**
 * What the agents feature takes and answers, declared once. Its answer: an agent as
 * db/queries/agents.ts `agentToSpec` builds it (its spec, id and times), sent by GET /api/v1/agents
 * and /agents/{id} and read by the agent list with that type. Its inputs: an agent's spec, whole or
 * patched (lib/core/agent/agent-spec.ts, which the importers and the CLI read too), the list's
 * paging and the server actions' fields.
 */
import { z } from "zod";
import type { agentToSpec } from "@/db/queries/agents";
import type { Json } from "@/lib/platform/api/json";
import { listQuerySchema } from "@/lib/platform/api/list-query";
import { agentNameSchema } from "@/lib/core/agent/agent-spec";

/** One agent of GET /api/v1/agents `items`, and GET /api/v1/agents/{id}. */
export type AgentResponse = Json<ReturnType<typeof agentToSpec>>;

/** POST /api/v1/agents and the agent form (a whole spec); PATCH /api/v1/agents/{id} (any of its fields). */
export { agentPatchSchema, agentSpecSchema } from "@/lib/core/agent/agent-spec";

/** GET /api/v1/agents: pages by name; the cursor is the last name seen. */
export const agentsQuerySchema = listQuerySchema(agentNameSchema);

/** The server actions on one agent (delete): its id, from the form. */
export const agentRefSchema = z.object({ id: z.string() });
