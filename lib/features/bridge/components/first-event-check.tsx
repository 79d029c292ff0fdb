"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { formatTime } from "@/components/ui/format-time";
import type { ArrivedEvent, SessionsBefore } from "@/lib/features/bridge/first-event-tracker";
import { fetchSessionsBefore, useFirstBridgedEvent } from "./use-first-bridged-event";

interface CheckProps {
  agentId: string;
  userId: string;
  person: string;
  source: string;
  codingAgentLabel: string;
}

const BOX = "rounded-lg border p-4 text-sm";

/**
 * Step 4 of the connect page: waits for the first event of this person's coding agent for this
 * agent, and says where it came from with a link to its run. Another person's events, or another
 * coding agent's, do not count: the check is about this person's set-up.
 */
export function FirstEventCheck(props: CheckProps) {
  const { agentId, userId, source } = props;
  const before = useQuery({
    queryKey: ["connect-sessions-before", agentId, userId, source],
    queryFn: () => fetchSessionsBefore({ agentId, userId, source }),
    // What was there when the page opened: read once, never refreshed under the check.
    staleTime: Infinity,
    gcTime: 0,
  });

  if (before.isPending) {
    return <div className="h-16 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" aria-busy="true" data-testid="connect-check-loading" />;
  }
  if (before.isError) {
    return (
      <div role="alert" className={`${BOX} border-red-200 bg-red-50 text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200`} data-testid="connect-check-error">
        Could not start the live check: {before.error.message}{" "}
        <button type="button" className="underline" onClick={() => before.refetch()}>
          Retry
        </button>
      </div>
    );
  }
  return <LiveCheck {...props} before={before.data} />;
}

function LiveCheck({ agentId, userId, person, source, codingAgentLabel, before }: CheckProps & { before: SessionsBefore }) {
  const { socket, arrived } = useFirstBridgedEvent({ agentId, userId, source }, before);
  if (arrived) return <Connected event={arrived} />;
  return (
    <div className={`${BOX} border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900`} role="status" data-testid="connect-check" data-state="waiting">
      <p className="flex items-center gap-2 font-medium">
        <span className="relative flex h-2.5 w-2.5" aria-hidden="true">
          <span className="absolute inline-flex h-full w-full animate-ping rounded-full bg-sky-400 opacity-75 motion-reduce:animate-none" />
          <span className="relative inline-flex h-2.5 w-2.5 rounded-full bg-sky-500" />
        </span>
        Waiting for the first event from {person}&apos;s {codingAgentLabel}…
      </p>
      <p className="mt-1 text-zinc-500">
        Start a session where you put the settings: this turns green as soon as its first hook call reaches Hookplane.
        {socket !== "open" && (
          <span className="ml-1 text-amber-700 dark:text-amber-300" data-testid="connect-check-socket">
            {socket === "connecting" ? "(connecting to the live stream…)" : "(the live stream dropped; reconnecting…)"}
          </span>
        )}
      </p>
    </div>
  );
}

/** What the event was: its type, and the tool for a tool call. */
function eventName(event: ArrivedEvent): string {
  const tool = typeof event.data.toolName === "string" ? ` (${event.data.toolName})` : "";
  return `${event.type}${tool}`;
}

function Connected({ event }: { event: ArrivedEvent }) {
  return (
    <div
      className={`${BOX} border-emerald-200 bg-emerald-50 text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950 dark:text-emerald-200`}
      role="status"
      data-testid="connect-check"
      data-state="connected"
    >
      <p className="font-medium">
        Connected: <code className="font-mono" data-testid="connect-check-event">{eventName(event)}</code> from{" "}
        <span data-testid="connect-check-host">{event.host ?? "a machine that did not report its name"}</span> at{" "}
        <time dateTime={event.ts}>{formatTime(event.ts)}</time>
      </p>
      <p className="mt-1">
        <Link href={`/runs/${event.runId}`} className="font-medium underline underline-offset-2" data-testid="connect-check-run">
          Open the run
        </Link>{" "}
        to watch the session live; the agent&apos;s hooks decide its calls from now on.
      </p>
    </div>
  );
}
