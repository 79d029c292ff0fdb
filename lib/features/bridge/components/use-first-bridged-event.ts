"use client";

/**
 * The connect page's live check on the stream hub (/api/ws): the first event a person's coding
 * agent sends for an agent after the page opened (which one counts: first-event-tracker.ts).
 *
 * The stream rather than polling GET /api/v1/runs: the `runs` topic already carries every changed
 * run row of the project with its agent, source and actor, so telling this person's sessions
 * apart is a comparison in the browser, with no request per tick; and a `run:<id>` subscription
 * replays that run's events after a seq, so the event that arrived is named even when its run's
 * row was announced before the event was stored.
 */
import { useRef, useState } from "react";
import { ApiClientError } from "@/lib/platform/api/api-fetch";
import { useLiveSocket, type SocketState } from "@/lib/platform/stream/use-live-socket";
import type { ClientMessage } from "@/lib/platform/stream/protocol";
import { FirstEventTracker, type ArrivedEvent, type BridgedRun, type RunStream, type SessionsBefore } from "@/lib/features/bridge/first-event-tracker";

/** The person's runs of the agent from the coding agent, and the server's time they were read at. */
export async function fetchSessionsBefore({ agentId, userId, source }: { agentId: string; userId: string; source: string }): Promise<SessionsBefore> {
  const response = await fetch(`/api/v1/runs?${new URLSearchParams({ agent: agentId, actor: userId, limit: "200" })}`, { credentials: "same-origin" });
  const body = await response.json().catch(() => undefined);
  if (!response.ok) throw new ApiClientError(response.status, body?.error?.message ?? `Request failed (${response.status})`);
  // The server's clock, not the browser's: run creation times are compared with it.
  const serverNow = Date.parse(response.headers.get("date") ?? "");
  return {
    runs: (body.items as BridgedRun[]).filter((run) => run.source === source),
    since: Number.isNaN(serverNow) ? Date.now() : serverNow,
  };
}

export function useFirstBridgedEvent(whose: { agentId: string; userId: string; source: string }, before: SessionsBefore): { socket: SocketState; arrived?: ArrivedEvent } {
  const [arrived, setArrived] = useState<ArrivedEvent>();
  const tracker = useRef<FirstEventTracker>(undefined);
  tracker.current ??= new FirstEventTracker(whose, before);
  const send = useRef<(msg: ClientMessage) => void>(undefined);
  const stream = ({ runId, after }: RunStream) => send.current?.({ type: "subscribe", topic: `run:${runId}`, after });
  const seeRun = (run: BridgedRun) => {
    const start = tracker.current!.seeRun(run);
    if (start) stream(start);
  };

  const socket = useLiveSocket(
    (sendNow) => {
      send.current = sendNow;
      if (tracker.current!.arrived) return;
      sendNow({ type: "subscribe", topic: "runs" });
      // Nothing has counted yet: a reconnect asks again from the same seqs.
      tracker.current!.streams().forEach(stream);
    },
    (msg) => {
      if (msg.type === "subscribed" && msg.topic === "runs") {
        // A session that started while the socket was not yet (or no longer) open announced its
        // run to no one here: the list, read now that the subscription stands, has it.
        fetchSessionsBefore(whose)
          .then(({ runs }) => runs.forEach(seeRun))
          .catch(() => {
            // The stream still announces every run that changes from now on.
          });
      } else if (msg.type === "run") {
        seeRun(msg.run as unknown as BridgedRun);
      } else if (msg.type === "event") {
        const found = tracker.current!.seeEvent(msg.runId, msg.seq, msg.event);
        if (!found) return;
        send.current?.({ type: "unsubscribe", topic: "runs" });
        for (const runId of tracker.current!.streamedRuns()) send.current?.({ type: "unsubscribe", topic: `run:${runId}` });
        setArrived(found);
      }
    },
  );
  return { socket, arrived };
}
