"use client";

import { clsx } from "clsx";
import { matcherNames, type AgentRef, type ScheduleRef } from "@/lib/features/hooks/hook-scopes";
import { matcherSubjectKind, previewMatcher } from "@/lib/features/hooks/matcher-preview";

/** Which of the scope's tools (or agents) the matcher hits, as the runtime will decide it. */
export function MatcherPreview({
  matcher,
  event,
  scope,
  agents,
  schedules,
}: {
  matcher: string;
  event: string;
  scope: string;
  agents: AgentRef[];
  schedules: ScheduleRef[];
}) {
  const kind = matcherSubjectKind(event);
  const names = matcherNames(scope, kind, agents, schedules);
  const preview = previewMatcher(matcher, names);
  if (preview.error) return null;
  const noun = kind === "tool" ? "tools" : "agents";
  return (
    <div className="rounded-md bg-zinc-50 px-3 py-2 text-xs dark:bg-zinc-800/50" data-testid="matcher-preview" aria-live="polite">
      {names.length === 0 ? (
        <span className="text-zinc-500">No {noun} in this scope to preview against.</span>
      ) : (
        <>
          <span className="text-zinc-600 dark:text-zinc-400">
            Matches {preview.hits.length} of {names.length} {noun} in this scope{matcher.trim() ? "" : " (no matcher: every one)"}:
          </span>
          <ul className="mt-1.5 flex flex-wrap gap-1.5">
            {names.map((name) => {
              const hit = preview.hits.includes(name);
              return (
                <li
                  key={name}
                  data-testid={hit ? "matcher-hit" : "matcher-miss"}
                  className={clsx(
                    "rounded px-1.5 py-0.5 font-mono",
                    hit
                      ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300"
                      : "bg-zinc-200 text-zinc-500 line-through dark:bg-zinc-800 dark:text-zinc-500",
                  )}
                >
                  <span className="sr-only">{hit ? "matches " : "does not match "}</span>
                  {name}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </div>
  );
}
