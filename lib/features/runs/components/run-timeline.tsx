"use client";

/**
 * The run's timeline, virtualized (a 20,000-event run scrolls at frame rate), following the newest
 * entry until the person scrolls up; scrolling back to the bottom follows again. A link to one event
 * (`/runs/<id>#event-<seq>`, as a replay's differences give) opens it and scrolls it into view instead.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import type { LedgerRow } from "@/lib/platform/stream/protocol";
import { EventEntry, SpanEntry } from "./timeline-entry";
import type { TimelineRow } from "./timeline-rows";

export function RunTimeline({
  rows,
  ledgerBySeq,
  latencyBySeq,
  emptyText,
}: {
  rows: TimelineRow[];
  ledgerBySeq: Map<number, LedgerRow[]>;
  /** How long the step an event ends took (a model.post: its call), from the waterfall. */
  latencyBySeq?: Map<number, number>;
  emptyText: string;
}) {
  const [expanded, setExpanded] = useState<string | null>(null);
  const lastRow = rows.at(-1);
  const loadedSeq = lastRow ? (lastRow.kind === "span" ? Math.max(...lastRow.events.map((e) => e.seq)) : lastRow.event.seq) : 0;

  // How many ledger rows the view holds (tests and bench:ui wait on it).
  const ledgerRows = useMemo(() => [...ledgerBySeq.values()].reduce((n, list) => n + list.length, 0), [ledgerBySeq]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 36,
    overscan: 20,
  });
  const follow = useRef(true);
  const lastScrollTop = useRef(0);
  // The event the address names, once it has loaded: opened, centred, and no longer following.
  const hash = useSyncExternalStore(subscribeToHash, () => window.location.hash, () => "");
  const hashSeq = /^#event-(\d+)$/.exec(hash)?.[1];
  const targetSeq = hashSeq === undefined ? undefined : Number(hashSeq);
  const targeted = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (targeted.current === targetSeq || targetSeq === undefined) return;
    const index = rows.findIndex((row) => (row.kind === "span" ? row.events.some((e) => e.seq === targetSeq) : row.event.seq === targetSeq));
    if (index < 0) return;
    targeted.current = targetSeq;
    follow.current = false;
    setExpanded(rows[index].key);
    virtualizer.scrollToIndex(index, { align: "center" });
  }, [rows, virtualizer, targetSeq]);
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

  return (
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
      data-ledger-rows={ledgerRows}
    >
      {rows.length === 0 ? (
        <p className="p-6 text-sm text-zinc-500">{emptyText}</p>
      ) : (
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            const open = expanded === row.key;
            const toggle = () => setExpanded(open ? null : row.key);
            return (
              <div
                key={row.key}
                ref={virtualizer.measureElement}
                data-index={item.index}
                style={{ position: "absolute", top: 0, left: 0, width: "100%", transform: `translateY(${item.start}px)` }}
                className="border-b border-zinc-100 dark:border-zinc-800"
                data-testid={row.kind === "span" ? "run-span" : "run-event"}
                data-targeted={targetSeq !== undefined && (row.kind === "span" ? row.events.some((e) => e.seq === targetSeq) : row.event.seq === targetSeq) ? "" : undefined}
                data-type={row.kind === "span" ? "tool-call" : row.event.type}
              >
                {row.kind === "span" ? (
                  <SpanEntry events={row.events} open={open} onToggle={toggle} ledgerBySeq={ledgerBySeq} />
                ) : (
                  <EventEntry event={row.event} open={open} onToggle={toggle} hooks={ledgerBySeq.get(row.event.seq) ?? []} latencyMs={latencyBySeq?.get(row.event.seq)} />
                )}
              </div>
            );
          })}
        </div>
      )}
    </div>
  );
}

function subscribeToHash(onChange: () => void): () => void {
  window.addEventListener("hashchange", onChange);
  return () => window.removeEventListener("hashchange", onChange);
}
