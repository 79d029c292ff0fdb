/**
 * Replays a draft hook over an agent's last runs, or over the project's last runs of every agent
 * (its own and bridged coding-agent sessions) when no agent is named: every recorded event of the hook's type is
 * dispatched to the draft, as part of the chain that decided then (a block by another hook still
 * holds; the draft replaces its own earlier version), and each place where the outcome differs from
 * what happened (a block that took effect, or none) is listed. Only in-process actions replay: a webhook or command
 * would reach the outside world once per past event.
 */
import type { Db } from "@/db/client";
import { getAgent } from "@/db/queries/agents";
import { listEffectiveBlocks, listEventsOfRuns, listLatestRuns, listRunActors } from "@/db/queries/event-samples";
import { AppError } from "@/lib/platform/api/app-error";
import type { Principal } from "@/lib/platform/auth/roles";
import type { EventName } from "@/lib/core/hooks/events";
import { hookEvent, type EventActor } from "@/lib/core/hooks/event";
import { asTrialHooks, assertMayRun, withTrialRuntime } from "./hook-trial";
import { resolveHookScope } from "./hook-scope";
import { runEventPath } from "./run-event-path";
import type { HookReplayRequest } from "./schema";

const REPLAYABLE = new Set(["block", "approve", "context", "log", "allow", "detect"]);

export interface ReplayDifference {
  runId: string;
  seq: number;
  /** The run's agent (across the project's agents, which one this call was of). */
  agent: { id: string; name: string };
  /** The run's page at this event. */
  runPath: string;
  /** Whose coding agent's call it was (a bridged session). */
  actor?: string;
  toolName?: string;
  before: "allow" | "block";
  after: "allow" | "block" | "skip" | "suspend";
  reason?: string;
  blockedBefore?: string;
}

export async function replayHook(db: Db, principal: Principal, body: HookReplayRequest) {
  // Who may run it first: an operator learns no more about a hook that runs code than "admins only".
  assertMayRun(principal, [body.hook]);
  if (!REPLAYABLE.has(body.hook.action.type)) {
    throw new AppError("not_replayable", `Replay runs only in-process actions (${[...REPLAYABLE].join(", ")}); "${body.hook.action.type}" would call out once per past event`, [
      { path: "hook.action.type", message: "not replayable" },
    ]);
  }
  // As saving would store it: a person by email becomes their user id, an agent by name its id.
  const draft = { ...body.hook, scope: await resolveHookScope(db, { projectId: principal.projectId, scope: body.hook.scope }) };
  // One agent: the one named, or the one the hook is scoped to (its scope still applies); else every
  // agent of the project. Runs are read in the principal's project only.
  const agentRef = body.agent ?? (draft.scope.startsWith("agent:") ? draft.scope.slice("agent:".length) : undefined);
  const agent = agentRef === undefined ? undefined : await getAgent(db, { projectId: principal.projectId, ref: agentRef });
  if (agentRef !== undefined && !agent) throw AppError.notFound(`Agent "${agentRef}"`);
  const latest = await listLatestRuns(db, {
    projectId: principal.projectId,
    ...(agent && { agentId: agent.id }),
    limit: body.runs,
    ...(body.since && { since: new Date(body.since) }),
    ...(body.until && { until: new Date(body.until) }),
  });
  const runIds = latest.map((r) => r.id);
  const runById = new Map(latest.map((r) => [r.id, r]));
  const events = await listEventsOfRuns(db, { runIds, types: [body.hook.event] });
  const actors = new Map<string, EventActor>();
  for (const a of await listRunActors(db, { runIds })) {
    actors.set(a.runId, {
      key: a.key!,
      ...(a.userId && { userId: a.userId }),
      ...(a.email && { email: a.email }),
      label: a.label ?? a.key!,
      ...(a.role && { role: a.role }),
      ...(a.groups && a.groups.length > 0 && { groups: a.groups }),
    });
  }
  const blocked = new Map<string, { text: string; waivable: boolean; by: string }>();
  for (const b of await listEffectiveBlocks(db, { runIds })) {
    // What a person's exception could have waived (lib/core/hooks/runtime.ts, waivedBy): a block or
    // approve hook's decision, of any scope but a person's, that did not fail.
    const waivable = (b.action === "block" || b.action === "approve") && !b.failed && !b.scope?.startsWith("person:");
    blocked.set(`${b.runId}:${b.eventSeq}`, { text: `${b.hookKey}: ${b.reason ?? ""}`, waivable, by: b.hookKey });
  }

  const hooks = asTrialHooks([draft]);
  // A rule bound to people, or to a schedule, is compared on the calls it applies to only.
  const bound = draft.scope.startsWith("person:") || draft.scope.startsWith("group:") || draft.scope.startsWith("schedule:");
  const differences: ReplayDifference[] = [];
  await withTrialRuntime(db, principal.projectId, async (runtime, workspaceDir) => {
    for (const event of events) {
      const run = runById.get(event.runId)!;
      const result = await runtime.dispatch(hooks, hookEvent({
        type: body.hook.event as EventName,
        runId: event.runId,
        agentId: run.agentId,
        agentName: run.agentName,
        ...(run.scheduleId && { scheduleId: run.scheduleId }),
        ts: event.ts.getTime(),
        data: event.data,
        workspaceDir,
        triggerType: "hook-replay",
        // The person as a rule sees them now (role, groups): a draft bound to people replays as it would hold.
        ...(actors.has(event.runId) && { actor: actors.get(event.runId) }),
      }));
      // A rule for a person or a group is compared on their calls only: it says nothing of others'.
      if (bound && result.ledger[0]?.reason?.startsWith(`scope ${draft.scope} does not apply`)) continue;
      const blockedThen = blocked.get(`${event.runId}:${event.seq}`);
      const blockedBefore = blockedThen?.text;
      const before = blockedBefore ? "block" : "allow";
      // The draft joins the chain that decided then: another hook's block still holds (a new guard
      // over calls already refused changes nothing); only its own earlier version's block is replaced.
      // An allow rule changes a call only as an exception that matches it and can waive what blocked it.
      const blockedByOther = blockedThen !== undefined && blockedThen.by !== draft.id;
      const after =
        body.hook.action.type === "allow"
          ? body.hook.exception && blockedThen?.waivable && result.ledger.some((e) => e.matched && e.verdict === "allow")
            ? "allow"
            : before
          : blockedByOther && result.verdict !== "block"
            ? "block"
            : result.verdict;
      if (after !== before && !(after === "skip" && before === "allow")) {
        differences.push({
          runId: event.runId,
          seq: event.seq,
          agent: { id: run.agentId, name: run.agentName },
          runPath: runEventPath(event.runId, event.seq),
          ...(actors.has(event.runId) && { actor: actors.get(event.runId)!.label }),
          toolName: typeof event.data.toolName === "string" ? event.data.toolName : undefined,
          before,
          after,
          reason: result.reason,
          blockedBefore,
        });
      }
    }
  });
  // Whose calls the draft would change, most first: the question a per-person rule is written for.
  const changed = new Map<string, number>();
  for (const d of differences) changed.set(d.actor ?? "", (changed.get(d.actor ?? "") ?? 0) + 1);
  const byPerson = [...changed.entries()].map(([actor, calls]) => ({ actor: actor || null, calls })).sort((a, b) => b.calls - a.calls);
  // The agents whose runs were replayed, and how many of each: what "over N runs" covered.
  const agents = new Map<string, { id: string; name: string; runs: number }>();
  for (const r of latest) {
    const seen = agents.get(r.agentId);
    if (seen) seen.runs += 1;
    else agents.set(r.agentId, { id: r.agentId, name: r.agentName, runs: 1 });
  }
  return { agent: agent?.name ?? null, agents: [...agents.values()], runs: runIds.length, events: events.length, differences, byPerson };
}
