"use client";

/**
 * A run as it happens: its stored events in a few large pages, then the live ones from the socket
 * (subscribed with `after`, so there is no gap and no duplicate), grouped into the timeline; its
 * status and totals; its hook ledger the same way (stored rows in pages, then each new row from the
 * socket as it is committed, subscribed with `afterLedger`: never the whole ledger again); the
 * approvals it waits on. Pausing holds new events back without losing them.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import type { ApprovalResponse } from "@/lib/features/approvals/schema";
import { apiFetch } from "@/lib/platform/api/api-fetch";
import type { ClientMessage } from "@/lib/platform/stream/protocol";
import { useLiveSocket } from "@/lib/platform/stream/use-live-socket";
import type { LedgerRow } from "@/lib/platform/stream/protocol";
import type { RunEventResponse, RunResponse } from "../schema";
import { addToTimeline, emptyTimeline, type TimelineState } from "./timeline-rows";

export function useRunStream(initial: RunResponse) {
  const [run, setRun] = useState(initial);
  const [timeline, setTimeline] = useState<TimelineState>(emptyTimeline);
  const [paused, setPaused] = useState(false);
  const lastSeq = useRef(0);
  const held = useRef<RunEventResponse[]>([]);
  // Incoming events are applied once per animation frame: a 20,000-event replay is a few
  // hundred renders, not 20,000.
  const incoming = useRef<RunEventResponse[]>([]);
  const frame = useRef<number | undefined>(undefined);
  const applyIncoming = useCallback(() => {
    frame.current = undefined;
    const batch = incoming.current;
    incoming.current = [];
    if (batch.length) setTimeline((t) => addToTimeline(t, batch));
  }, []);
  const enqueue = useCallback(
    (batch: RunEventResponse[]) => {
      incoming.current.push(...batch);
      frame.current ??= requestAnimationFrame(applyIncoming);
    },
    [applyIncoming],
  );
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const queryClient = useQueryClient();

  const approvals = useQuery({
    queryKey: ["approvals", "pending"],
    queryFn: () => apiFetch<{ items: ApprovalResponse[] }>(`/api/v1/approvals?status=pending&limit=200`),
  });
  const pending = (approvals.data?.items ?? []).filter((a) => a.runId === run.id);

  // The ledger by event seq, grown as rows arrive (each row once: ids only go up).
  const [ledgerBySeq, setLedgerBySeq] = useState<Map<number, LedgerRow[]>>(() => new Map());
  const lastLedgerId = useRef(0);
  const addLedger = useCallback((rows: LedgerRow[]) => {
    const fresh = rows.filter((row) => row.id > lastLedgerId.current);
    if (fresh.length === 0) return;
    lastLedgerId.current = fresh[fresh.length - 1].id;
    setLedgerBySeq((current) => {
      const next = new Map(current);
      for (const row of fresh) if (row.eventSeq !== null) next.set(row.eventSeq, [...(next.get(row.eventSeq) ?? []), row]);
      return next;
    });
  }, []);

  // Stored events come in a few large HTTP pages; the socket then streams from the last one
  // (subscribing with `after`), so a 20,000-event run is not 20,000 socket messages.
  const sendRef = useRef<((msg: ClientMessage) => void) | undefined>(undefined);
  const historyLoaded = useRef(false);
  const subscribeRun = useCallback(() => {
    if (historyLoaded.current) sendRef.current?.({ type: "subscribe", topic: `run:${run.id}`, after: lastSeq.current, afterLedger: lastLedgerId.current });
  }, [run.id]);
  useEffect(() => {
    let cancelled = false;
    (async () => {
      for (;;) {
        const page = await apiFetch<{ items: RunEventResponse[]; nextAfter: number | null }>(`/api/v1/runs/${run.id}/events?after=${lastSeq.current}&limit=5000`);
        if (cancelled) return;
        const fresh = page.items.filter((e) => e.seq === lastSeq.current + 1 + page.items.indexOf(e));
        if (fresh.length) {
          lastSeq.current = fresh[fresh.length - 1].seq;
          enqueue(fresh);
        }
        if (page.nextAfter === null || fresh.length < page.items.length) break;
      }
      for (;;) {
        const page = await apiFetch<{ items: LedgerRow[]; nextAfter: number | null }>(`/api/v1/runs/${run.id}/hooks?after=${lastLedgerId.current}&limit=5000`);
        if (cancelled) return;
        addLedger(page.items);
        if (page.nextAfter === null) break;
      }
      historyLoaded.current = true;
      subscribeRun();
    })().catch(() => {
      // The socket replays from the last seq we have instead.
      historyLoaded.current = true;
      subscribeRun();
    });
    return () => {
      cancelled = true;
    };
  }, [run.id, enqueue, addLedger, subscribeRun]);

  const socketState = useLiveSocket(
    (send) => {
      sendRef.current = send;
      send({ type: "subscribe", topic: "runs" });
      send({ type: "subscribe", topic: "approvals" });
      subscribeRun();
    },
    (msg) => {
      if (msg.type === "event" && msg.runId === run.id) {
        const seq = msg.seq;
        if (seq !== lastSeq.current + 1) return; // the hub guarantees order; ignore anything else
        lastSeq.current = seq;
        const event = { seq, type: msg.event.type, ts: msg.event.ts, data: msg.event.data };
        if (pausedRef.current) held.current.push(event);
        else enqueue([event]);
      } else if (msg.type === "ledger" && msg.runId === run.id) {
        addLedger(msg.rows);
      } else if (msg.type === "run" && msg.run.id === run.id) {
        setRun((current) => ({ ...current, ...(msg.run as unknown as RunResponse) }));
      } else if (msg.type === "approval") {
        void queryClient.invalidateQueries({ queryKey: ["approvals"] });
      }
    },
  );

  const pause = useCallback(() => setPaused(true), []);
  const resume = useCallback(() => {
    enqueue(held.current);
    held.current = [];
    setPaused(false);
  }, [enqueue]);

  return { run, rows: timeline.rows, ledgerBySeq, pending, socketState, paused, heldCount: held.current.length, pause, resume };
}
