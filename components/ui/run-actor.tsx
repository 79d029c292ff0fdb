"use client";

/**
 * Whose coding agent acted in a bridged session: the person (or the token no person owns), and the
 * machine as that machine's CLI reported it, which nothing verifies, so it is labelled as such.
 */
import { UserRound } from "lucide-react";

/** Who acted in a bridged session, as GET /api/v1/runs reports it (`actor`). */
export interface RunActor {
  userId?: string;
  label: string;
  machine?: { host?: string; osUser?: string; reported: true };
}

/** A run's agent, and under it whose coding agent it was (a bridged session). */
export function AgentWithActor({ agentName, actor }: { agentName?: string; actor?: RunActor }) {
  return (
    <>
      {agentName}
      {actor && (
        <div>
          <RunActorLabel actor={actor} />
        </div>
      )}
    </>
  );
}

export function RunActorLabel({ actor, withMachine = false }: { actor?: RunActor; withMachine?: boolean }) {
  if (!actor) return null;
  const machine = actor.machine && [actor.machine.osUser, actor.machine.host].filter(Boolean).join("@");
  return (
    <span className="inline-flex items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400" data-testid="run-actor" title={machine ? `on ${machine} (reported by its CLI, not verified)` : undefined}>
      <UserRound className="h-3.5 w-3.5" aria-hidden />
      <span data-testid="run-actor-label">{actor.label}</span>
      {withMachine && machine && (
        <span className="text-zinc-500" data-testid="run-actor-machine">
          on {machine} <span className="italic">(reported, unverified)</span>
        </span>
      )}
    </span>
  );
}
