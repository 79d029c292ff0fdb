import type { SightingRow, UnguardedReason } from "@/db/queries/coding-agent-sightings";
import { ActorLine } from "@/components/ui/actor-line";

const REASON: Record<UnguardedReason, (s: SightingRow) => string> = {
  safe_mode: () => "ran in Claude Code's safe mode: no hook ran",
  no_gating_hook: () => "registered no PreToolUse hook: no tool call was checked",
  calls_unseen: (s) => `${s.toolCalls} tool call${s.toolCalls === 1 ? "" : "s"}, none of which reached Hookplane`,
};

/**
 * Coding-agent sessions that this agent's people ran without Hookplane's guards, as the agents'
 * own telemetry reported them (session-sightings.ts): who, which session and why. Shown only
 * when there are some; the alert kind `unguarded_sessions` tells the team without a visit.
 */
export function UnguardedSessions({ sessions, days }: { sessions: (SightingRow & { reason: UnguardedReason })[]; days: number }) {
  if (sessions.length === 0) return null;
  return (
    <section aria-labelledby="unguarded-title" className="space-y-2 rounded-md border border-red-300 p-3 dark:border-red-800" data-testid="unguarded-sessions">
      <h2 id="unguarded-title" className="text-sm font-semibold text-red-700 dark:text-red-300">
        Sessions without Hookplane&apos;s hooks ({days} days)
      </h2>
      <ul className="space-y-2 text-sm">
        {sessions.map((s) => (
          <li key={s.id} data-testid="unguarded-session" data-reason={s.reason}>
            <ActorLine label={s.actorLabel} detail={s.externalSessionId} detailTitle="the coding agent's session id" />
            <div className="text-xs text-zinc-600 dark:text-zinc-400">
              Claude Code {s.cliVersion || "?"}: {REASON[s.reason](s)}; last seen {s.lastSeenAt.toLocaleString(undefined, { hour12: false })}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
