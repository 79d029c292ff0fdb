import { z } from "zod";
import { listRuns, runToApi } from "@/db/queries/runs";
import { findAgentOr404 } from "@/lib/agents/agent-service";
import { decodeCursor, paginate } from "@/lib/api/cursor";
import { listQuerySchema } from "@/lib/api/list-query";
import { apiRoute } from "@/lib/api/route";
import { startRun, startRunSchema } from "@/lib/runs/run-service";
import { OUTCOMES } from "@/lib/hooks/events";
import { RUN_STATUSES } from "@/db/schema";

const runFiltersSchema = listQuerySchema.extend({
  agent: z.string().optional(),
  status: z.enum(RUN_STATUSES).optional(),
  outcome: z.enum(OUTCOMES).optional(),
  tool: z.string().optional(),
  blocked: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
  q: z.string().max(200).optional(),
  from: z.coerce.date().optional(),
  to: z.coerce.date().optional(),
  minCost: z.coerce.number().min(0).optional(),
});

export const GET = apiRoute({ role: "viewer", query: runFiltersSchema }, async ({ db, query }) => {
  const agentId = query.agent ? (await findAgentOr404(db, query.agent)).id : undefined;
  const rows = await listRuns(db, {
    ...query,
    agentId,
    minCostUsd: query.minCost,
    limit: query.limit + 1,
    before: decodeCursor<{ createdAt: string; id: string }>(query.cursor),
  });
  const page = paginate(rows, query.limit, (r) => ({ createdAt: r.createdAt.toISOString(), id: r.id }));
  return { items: page.items.map(runToApi), nextCursor: page.nextCursor };
});

export const POST = apiRoute({ role: "operator", body: startRunSchema }, async ({ db, body, principal }) => {
  const run = await startRun(db, principal, body);
  return Response.json({ id: run.id, status: run.status }, { status: 202 });
});
