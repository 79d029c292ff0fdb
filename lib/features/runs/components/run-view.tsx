"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useActionState, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { cancelRunAction } from "@/lib/features/runs/run-actions";
import { Button } from "@/components/ui/button";
import { apiFetch } from "@/lib/platform/api/api-fetch";
import { ApprovalCard, type PendingApproval } from "@/lib/features/approvals/components/approval-card";
import { StatusBadge, formatTime, formatUsd, summarizeEvent } from "./run-format";
import { addToTimeline, emptyTimeline, spanStatus, type SpanStatus, type TimelineState } from "./timeline-rows";
import type { ClientMessage } from "@/lib/platform/stream/protocol";
import { useLiveSocket } from "./use-live-socket";

export interface RunSummary {
  id: string;
  agentId: string;
  agentName?: string;
  status: string;
  outcome?: string;
  reason?: string;
  prompt: string;
  response?: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  createdAt: string;
}

interface RunEvent {
  seq: number;
  type: string;
  ts: string;
  data: Record<string, unknown>;
}

interface LedgerRow {
  id: number;
  eventSeq: number | null;
  hookKey: string;
  matched: boolean;
  verdict: string | null;
  reason: string | null;
  mode: string | null;
  action: string | null;
  durationMs: number | null;
  exitCode: number | null;
  output: string | null;
  stderr: string | null;
  ignored: boolean;
}

const TYPE_STYLES: Record<string, string> = {
  "tool.pre": "text-sky-700 dark:text-sky-300",
  "tool.post": "text-sky-700 dark:text-sky-300",
  "model.post": "text-indigo-700 dark:text-indigo-300",
  "loop.tool_denied": "text-red-700 dark:text-red-300",
  "approval.requested": "text-violet-700 dark:text-violet-300",
  "approval.settled": "text-violet-700 dark:text-violet-300",
  "session.end": "font-semibold",
  error: "text-red-700 dark:text-red-300",
};

function HookLedger({ rows }: { rows: LedgerRow[] }) {
  if (rows.length === 0) return <p className="text-xs text-zinc-500">No hook was bound to this event.</p>;
  return (
    <table className="w-full text-left text-xs" data-testid="event-ledger">
      <thead className="text-zinc-500">
        <tr>
          <th className="py-1 font-medium">hook</th>
          <th className="py-1 font-medium">matched</th>
          <th className="py-1 font-medium">verdict</th>
          <th className="py-1 font-medium">reason / output</th>
          <th className="py-1 text-right font-medium">ms</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id} className="border-t border-zinc-100 align-top dark:border-zinc-800">
            <td className="py-1 font-mono">
              {row.hookKey}
              {row.mode === "shadow" && <span className="ml-1 text-amber-600">shadow</span>}
            </td>
            <td className="py-1">{row.matched ? "yes" : "skipped"}</td>
            <td className="py-1">{row.verdict ?? "—"}{row.ignored && row.verdict ? " (ignored)" : ""}</td>
            <td className="py-1 break-all">{row.reason ?? row.output ?? row.stderr ?? ""}</td>
            <td className="py-1 text-right">{row.durationMs?.toFixed(1) ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}


function hooksBadge(hooks: LedgerRow[]) {
  if (hooks.length === 0) return null;
  const blocked = hooks.some((h) => h.verdict === "block" && !h.ignored);
  return (
    <span
      className={`shrink-0 rounded px-1.5 text-xs ${blocked ? "bg-red-100 text-red-700 dark:bg-red-950 dark:text-red-300" : "bg-zinc-100 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300"}`}
    >
      {blocked ? "blocked by hook" : `${hooks.filter((h) => h.matched).length}/${hooks.length} hooks`}
    </span>
  );
}

function EventDetail({ event, hooks }: { event: RunEvent; hooks: LedgerRow[] }) {
  return (
    <div className="space-y-2 bg-zinc-50 px-4 py-3 dark:bg-zinc-950/50">
      <HookLedger rows={hooks} />
      <pre className="max-h-72 overflow-auto rounded bg-white p-2 font-mono text-xs dark:bg-zinc-900" data-testid="event-json">
        {JSON.stringify({ seq: event.seq, type: event.type, ts: event.ts, data: event.data }, null, 2)}
      </pre>
    </div>
  );
}

/** The line of a timeline entry that opens and closes its detail: the seq, then the entry's own cells. */
function TimelineToggle({ seq, open, onToggle, status, children }: { seq: number; open: boolean; onToggle: () => void; status?: SpanStatus; children: ReactNode }) {
  return (
    <button
      type="button"
      onClick={onToggle}
      aria-expanded={open}
      className="flex w-full items-baseline gap-3 px-3 py-2 text-left text-sm hover:bg-zinc-50 dark:hover:bg-zinc-800/50"
      data-status={status}
    >
      <span className="w-10 shrink-0 text-right font-mono text-xs text-zinc-400">{seq}</span>
      {children}
    </button>
  );
}

function EventRow({ event, open, onToggle, hooks }: { event: RunEvent; open: boolean; onToggle: () => void; hooks: LedgerRow[] }) {
  return (
    <>
      <TimelineToggle seq={event.seq} open={open} onToggle={onToggle}>
        <span className={`w-40 shrink-0 font-mono text-xs ${TYPE_STYLES[event.type] ?? ""}`}>{event.type}</span>
        <span className="min-w-0 flex-1 truncate">{summarizeEvent(event.type, event.data)}</span>
        {hooksBadge(hooks)}
      </TimelineToggle>
      {open && <EventDetail event={event} hooks={hooks} />}
    </>
  );
}

const SPAN_STYLES: Record<SpanStatus, string> = {
  running: "text-sky-700 dark:text-sky-300",
  "waiting approval": "text-violet-700 dark:text-violet-300",
  abandoned: "text-zinc-500 dark:text-zinc-400",
  interrupted: "text-amber-700 dark:text-amber-300",
  denied: "text-red-700 dark:text-red-300",
  error: "text-red-700 dark:text-red-300",
  done: "text-emerald-700 dark:text-emerald-300",
};

/** One tool call: its tool.pre, approval, denial and tool.post as one line that opens up. */
function SpanRow({ events, open, onToggle, ledgerBySeq }: { events: RunEvent[]; open: boolean; onToggle: () => void; ledgerBySeq: Map<number, LedgerRow[]> }) {
  const pre = events[0];
  const post = events.find((e) => e.type === "tool.post");
  const denied = events.find((e) => e.type === "loop.tool_denied");
  const status = spanStatus(events);
  const hooks = events.flatMap((e) => ledgerBySeq.get(e.seq) ?? []);
  const detail = denied ? `denied: ${String(denied.data.reason ?? "")}` : post ? summarizeEvent("tool.post", post.data) : summarizeEvent(pre.type, pre.data);
  return (
    <>
      <TimelineToggle seq={pre.seq} open={open} onToggle={onToggle} status={status}>
        <span className="w-40 shrink-0 font-mono text-xs">
          <span className="text-sky-700 dark:text-sky-300">{String(pre.data.toolName ?? "tool")}</span>{" "}
          <span className={SPAN_STYLES[status]} data-testid="span-status">
            {status}
          </span>
        </span>
        <span className="min-w-0 flex-1 truncate">{detail}</span>
        {post && <span className="shrink-0 font-mono text-xs text-zinc-400">{Number(post.data.durationMs ?? 0)} ms</span>}
        {hooksBadge(hooks)}
      </TimelineToggle>
      {open && (
        <div className="divide-y divide-zinc-100 dark:divide-zinc-800">
          {events.map((e) => (
            <div key={e.seq}>
              <p className="bg-zinc-50 px-4 pt-2 font-mono text-xs dark:bg-zinc-950/50">
                #{e.seq} {e.type} · {summarizeEvent(e.type, e.data)}
              </p>
              <EventDetail event={e} hooks={ledgerBySeq.get(e.seq) ?? []} />
            </div>
          ))}
        </div>
      )}
    </>
  );
}

export function RunView({ initial, canOperate }: { initial: RunSummary; canOperate: boolean }) {
  const [run, setRun] = useState(initial);
  const [timeline, setTimeline] = useState<TimelineState>(emptyTimeline);
  const [paused, setPaused] = useState(false);
  const [expanded, setExpanded] = useState<string | null>(null);
  const lastSeq = useRef(0);
  const held = useRef<RunEvent[]>([]);
  // Incoming events are applied once per animation frame: a 20,000-event replay is a few
  // hundred renders, not 20,000.
  const incoming = useRef<RunEvent[]>([]);
  const frame = useRef<number | undefined>(undefined);
  const applyIncoming = useCallback(() => {
    frame.current = undefined;
    const batch = incoming.current;
    incoming.current = [];
    if (batch.length) setTimeline((t) => addToTimeline(t, batch));
  }, []);
  const enqueue = useCallback(
    (batch: RunEvent[]) => {
      incoming.current.push(...batch);
      frame.current ??= requestAnimationFrame(applyIncoming);
    },
    [applyIncoming],
  );
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const queryClient = useQueryClient();

  const ledger = useQuery({
    queryKey: ["run-ledger", run.id],
    queryFn: () => apiFetch<{ items: LedgerRow[] }>(`/api/v1/runs/${run.id}/hooks`),
  });
  const approvals = useQuery({
    queryKey: ["approvals", "pending"],
    queryFn: () => apiFetch<{ items: PendingApproval[] }>(`/api/v1/approvals?status=pending&limit=200`),
  });
  const pending = (approvals.data?.items ?? []).filter((a) => a.runId === run.id);

  const ledgerBySeq = useMemo(() => {
    const map = new Map<number, LedgerRow[]>();
    for (const row of ledger.data?.items ?? []) {
      if (row.eventSeq === null) continue;
      map.set(row.eventSeq, [...(map.get(row.eventSeq) ?? []), row]);
    }
    return map;
  }, [ledger.data]);

  // Ledger rows are written beside the events; refresh them (at most a few times a second).
  const refreshTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const refreshLedger = useCallback(() => {
    clearTimeout(refreshTimer.current);
    refreshTimer.current = setTimeout(() => queryClient.invalidateQueries({ queryKey: ["run-ledger", run.id] }), 300);
  }, [queryClient, run.id]);

  // Stored events come in a few large HTTP pages; the socket then streams from the last one
  // (subscribing with `after`), so a 20,000-event run is not 20,000 socket messages.
  const sendRef = useRef<((msg: ClientMessage) => void) | undefined>(undefined);
  const historyLoaded = useRef(false);
  const subscribeRun = useCallback(() => {
    if (historyLoaded.current) sendRef.current?.({ type: "subscribe", topic: `run:${run.id}`, after: lastSeq.current });
  }, [run.id]);
  useEffect(() => {
    let cancelled = false;
    (async () => {
      for (;;) {
        const page = await apiFetch<{ items: RunEvent[]; nextAfter: number | null }>(`/api/v1/runs/${run.id}/events?after=${lastSeq.current}&limit=5000`);
        if (cancelled) return;
        const fresh = page.items.filter((e) => e.seq === lastSeq.current + 1 + page.items.indexOf(e));
        if (fresh.length) {
          lastSeq.current = fresh[fresh.length - 1].seq;
          enqueue(fresh);
        }
        if (page.nextAfter === null || fresh.length < page.items.length) break;
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
  }, [run.id, enqueue, subscribeRun]);

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
        refreshLedger();
      } else if (msg.type === "run" && msg.run.id === run.id) {
        setRun((current) => ({ ...current, ...(msg.run as unknown as RunSummary) }));
      } else if (msg.type === "approval") {
        void queryClient.invalidateQueries({ queryKey: ["approvals"] });
      }
    },
  );

  const resume = () => {
    enqueue(held.current);
    held.current = [];
    setPaused(false);
  };
  const rows = timeline.rows;
  const lastRow = rows.at(-1);
  const loadedSeq = lastRow ? (lastRow.kind === "span" ? Math.max(...lastRow.events.map((e) => e.seq)) : lastRow.event.seq) : 0;

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 36,
    overscan: 20,
  });
  // Follow the newest event until the person scrolls up; scrolling back to the bottom resumes it.
  const follow = useRef(true);
  const lastScrollTop = useRef(0);
  useEffect(() => {
    const el = scrollRef.current;
    if (!follow.current || !el || rows.length === 0) return;
    el.scrollTop = el.scrollHeight;
    // Rows measured in this frame can grow the list; settle at the bottom on the next one too.
    const id = requestAnimationFrame(() => {
      if (follow.current) el.scrollTop = el.scrollHeight;
    });
    return () => cancelAnimationFrame(id);
  }, [rows, virtualizer]);

  const [cancelState, cancelAction, cancelling] = useActionState(cancelRunAction, {});

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-4 rounded-lg border border-zinc-200 bg-white p-4 text-sm dark:border-zinc-800 dark:bg-zinc-900">
        <StatusBadge status={run.status} outcome={run.outcome} />
        <span>
          <span className="text-zinc-500">tokens</span>{" "}
          <span data-testid="run-tokens">
            {run.inputTokens} in / {run.outputTokens} out
          </span>
        </span>
        <span>
          <span className="text-zinc-500">cost so far</span> <span data-testid="run-cost">{formatUsd(run.costUsd)}</span>
        </span>
        <span className="text-zinc-500">started {formatTime(run.createdAt)}</span>
        <span className="ml-auto flex items-center gap-2">
          <span className={`h-2 w-2 rounded-full ${socketState === "open" ? "bg-emerald-500" : "bg-amber-500"}`} aria-hidden />
          <span className="text-xs text-zinc-500" data-testid="live-state">
            {socketState === "open" ? (paused ? `paused (${held.current.length} new)` : "live") : "reconnecting…"}
          </span>
          <Button type="button" variant="secondary" onClick={() => (paused ? resume() : setPaused(true))} data-testid="pause-feed">
            {paused ? "Resume feed" : "Pause feed"}
          </Button>
          {canOperate && run.status !== "finished" && (
            <form action={cancelAction}>
              <input type="hidden" name="id" value={run.id} />
              <Button type="submit" variant="danger" disabled={cancelling} data-testid="cancel-run">
                Cancel run
              </Button>
            </form>
          )}
        </span>
      </div>
      {cancelState.message && <p className="text-sm text-zinc-500">{cancelState.message}</p>}
      {run.reason && run.status === "finished" && <p className="text-sm text-zinc-500">Reason: {run.reason}</p>}

      {pending.map((approval) => (
        <ApprovalCard key={approval.id} approval={{ ...approval, agentName: approval.agentName ?? run.agentName }} canDecide={canOperate} />
      ))}

      <div
        ref={scrollRef}
        onScroll={(e) => {
          const el = e.currentTarget;
          const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
          if (atBottom) follow.current = true;
          else if (el.scrollTop < lastScrollTop.current - 4) follow.current = false;
          lastScrollTop.current = el.scrollTop;
        }}
        className="h-[60vh] overflow-auto rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900"
        data-testid="run-timeline"
        data-loaded-seq={loadedSeq}
      >
        {rows.length === 0 ? (
          <p className="p-6 text-sm text-zinc-500">{run.status === "queued" ? "Waiting for a worker…" : "Loading events…"}</p>
        ) : (
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {virtualizer.getVirtualItems().map((item) => {
              const row = rows[item.index];
              const open = expanded === row.key;
              return (
                <div
                  key={row.key}
                  ref={virtualizer.measureElement}
                  data-index={item.index}
                  style={{ position: "absolute", top: 0, left: 0, width: "100%", transform: `translateY(${item.start}px)` }}
                  className="border-b border-zinc-100 dark:border-zinc-800"
                  data-testid={row.kind === "span" ? "run-span" : "run-event"}
                  data-type={row.kind === "span" ? "tool-call" : row.event.type}
                >
                  {row.kind === "span" ? (
                    <SpanRow events={row.events} open={open} onToggle={() => setExpanded(open ? null : row.key)} ledgerBySeq={ledgerBySeq} />
                  ) : (
                    <EventRow event={row.event} open={open} onToggle={() => setExpanded(open ? null : row.key)} hooks={ledgerBySeq.get(row.event.seq) ?? []} />
                  )}
                </div>
              );
            })}
          </div>
        )}
      </div>
      {run.response && (
        <section className="rounded-lg border border-zinc-200 bg-white p-4 text-sm dark:border-zinc-800 dark:bg-zinc-900">
          <h2 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">Response</h2>
          <p className="whitespace-pre-wrap" data-testid="run-response">
            {run.response}
          </p>
        </section>
      )}
    </div>
  );
}
