/**
 * Replays a draft hook over an agent's last runs: every recorded event of the hook's type is
 * dispatched to the draft, and each place where its verdict differs from what happened (a block
 * that took effect, or none) is listed. Only in-process actions replay: a webhook or command
 * would reach the outside world once per past event.
 */
import { z } from "zod";
import type { Db } from "@/db/client";
import { listEffectiveBlocks, listEventsOfRuns, listLatestRunIds } from "@/db/queries/event-samples";
import { findAgentOr404 } from "@/lib/features/agents/agent-service";
import { AppError } from "@/lib/platform/api/app-error";
import type { Principal } from "@/lib/platform/auth/roles";
import type { EventName } from "@/lib/core/hooks/events";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { asTrialHooks, assertMayRun, withTrialRuntime } from "./hook-trial";

const REPLAYABLE = new Set(["block", "approve", "context", "log"]);

export const hookReplaySchema = z.object({
  hook: hookSpecSchema,
  agent: z.string().min(1),
  runs: z.number().int().min(1).max(200).default(20),
});

export interface ReplayDifference {
  runId: string;
  seq: number;
  toolName?: string;
  before: "allow" | "block";
  after: "allow" | "block" | "skip" | "suspend";
  reason?: string;
  blockedBefore?: string;
}

export async function replayHook(db: Db, principal: Principal, body: z.infer<typeof hookReplaySchema>) {
  // Who may run it first: an operator learns no more about a hook that runs code than "admins only".
  assertMayRun(principal, [body.hook]);
  if (!REPLAYABLE.has(body.hook.action.type)) {
    throw new AppError("not_replayable", `Replay runs only in-process actions (${[...REPLAYABLE].join(", ")}); "${body.hook.action.type}" would call out once per past event`, [
      { path: "hook.action.type", message: "not replayable" },
    ]);
  }
  const agent = await findAgentOr404(db, principal.projectId, body.agent);
  const runIds = await listLatestRunIds(db, { projectId: principal.projectId, agentId: agent.id, limit: body.runs });
  const events = await listEventsOfRuns(db, { runIds, types: [body.hook.event] });
  const blocked = new Map<string, string>();
  for (const b of await listEffectiveBlocks(db, { runIds })) blocked.set(`${b.runId}:${b.eventSeq}`, `${b.hookKey}: ${b.reason ?? ""}`);

  const hooks = asTrialHooks([body.hook]);
  const differences: ReplayDifference[] = [];
  await withTrialRuntime(db, principal.projectId, async (runtime, workspaceDir) => {
    for (const event of events) {
      const result = await runtime.dispatch(hooks, {
        type: body.hook.event as EventName,
        runId: event.runId,
        agentId: agent.id,
        agentName: agent.name,
        ts: event.ts.getTime(),
        data: event.data,
        workspaceDir,
        triggerType: "hook-replay",
      });
      const blockedBefore = blocked.get(`${event.runId}:${event.seq}`);
      const before = blockedBefore ? "block" : "allow";
      const after = result.verdict;
      if (after !== before && !(after === "skip" && before === "allow")) {
        differences.push({
          runId: event.runId,
          seq: event.seq,
          toolName: typeof event.data.toolName === "string" ? event.data.toolName : undefined,
          before,
          after,
          reason: result.reason,
          blockedBefore,
        });
      }
    }
  });
  return { agent: agent.name, runs: runIds.length, events: events.length, differences };
}
