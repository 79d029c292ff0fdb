/**
 * A run's trace as a waterfall: each model call (model.pre to its model.post), each tool call (its
 * span: tool.pre to tool.post, or to its denial; an approval wait inside it) and, under each, the
 * hooks that ran on its events with their own durations. Built from the timeline rows the run view
 * already holds, so it grows live with them.
 *
 * Times are the events' own timestamps (milliseconds from the run's first event). A hook's start is
 * not stored, only its duration: hooks of one event are placed one after the other from the event's
 * time, in the order they ran (the ledger's order).
 */
import type { LedgerRow } from "@/lib/platform/stream/protocol";
import type { TimelineEvent, TimelineRow } from "./timeline-rows";

export type BarKind = "model" | "tool" | "approval" | "hook" | "event";

export interface WaterfallBar {
  key: string;
  kind: BarKind;
  label: string;
  /** Milliseconds from the run's first event. */
  startMs: number;
  /** Undefined while it has not ended (drawn to the end of the trace, marked running). */
  durationMs: number | undefined;
  /** 0: a step of the run; 1: a hook or an approval under it. */
  depth: 0 | 1;
  /** done, error, denied, blocked, failed, running, retried... */
  status: string;
  /** The seq of the event it opens on the timeline. */
  seq: number;
}

export interface Waterfall {
  bars: WaterfallBar[];
  /** From the first event to the last end seen (or `now` for a step still running). */
  totalMs: number;
  /** Per event seq: how long the step it ends took (a model.post: its call; a tool.post: its tool). */
  latencyBySeq: Map<number, number>;
}

const at = (e: TimelineEvent) => Date.parse(e.ts);

function hookBars(event: TimelineEvent, rows: LedgerRow[] | undefined, origin: number, prefix: string): WaterfallBar[] {
  const bars: WaterfallBar[] = [];
  let offset = 0;
  for (const row of rows ?? []) {
    if (!row.matched) continue;
    const duration = row.durationMs ?? undefined;
    const blocked = row.verdict === "block" && !row.ignored;
    bars.push({
      key: `${prefix}:hook:${row.id}`,
      kind: "hook",
      label: `${row.hookKey} · ${event.type}`,
      startMs: at(event) - origin + offset,
      durationMs: duration,
      depth: 1,
      status: row.failed || row.timedOut ? "failed" : blocked ? "blocked" : (row.verdict ?? "done"),
      seq: event.seq,
    });
    offset += duration ?? 0;
  }
  return bars;
}

export function buildWaterfall(rows: TimelineRow[], ledgerBySeq: Map<number, LedgerRow[]>, now?: number): Waterfall {
  const bars: WaterfallBar[] = [];
  const latencyBySeq = new Map<number, number>();
  const first = rows[0];
  if (!first) return { bars, totalMs: 0, latencyBySeq };
  const origin = at(first.kind === "span" ? first.events[0] : first.event);
  let end = origin;
  const seeEnd = (t: number) => {
    if (t > end) end = t;
  };

  let openModel: { pre: TimelineEvent; index: number } | undefined;
  const closeModel = (post: TimelineEvent | undefined, status: string, endAt: number) => {
    if (!openModel) return;
    const bar = bars[openModel.index];
    bar.durationMs = Math.max(0, endAt - at(openModel.pre));
    bar.status = status;
    if (post) {
      latencyBySeq.set(post.seq, bar.durationMs);
      bars.push(...hookBars(post, ledgerBySeq.get(post.seq), origin, bar.key));
    }
    openModel = undefined;
  };

  for (const row of rows) {
    if (row.kind === "span") {
      const [pre] = row.events;
      const post = row.events.find((e) => e.type === "tool.post");
      const denied = row.events.find((e) => e.type === "loop.tool_denied");
      const closing = post ?? denied;
      const duration = closing ? Math.max(0, at(closing) - at(pre)) : undefined;
      const key = `tool:${row.toolCallId}`;
      const status = denied ? "denied" : post ? (post.data.isError ? "error" : "done") : "running";
      bars.push({ key, kind: "tool", label: String(pre.data.toolName ?? "tool"), startMs: at(pre) - origin, durationMs: duration, depth: 0, status, seq: pre.seq });
      if (post && duration !== undefined) latencyBySeq.set(post.seq, duration);
      for (const event of row.events) {
        seeEnd(at(event));
        if (event.type === "approval.requested") {
          const settled = row.events.find((e) => e.type === "approval.settled");
          bars.push({
            key: `${key}:approval:${event.seq}`,
            kind: "approval",
            label: `approval · ${String(pre.data.toolName ?? "tool")}`,
            startMs: at(event) - origin,
            durationMs: settled ? Math.max(0, at(settled) - at(event)) : undefined,
            depth: 1,
            status: settled ? String(settled.data.timedOut ? "timed out" : (settled.data.decision ?? settled.data.status ?? "settled")) : "waiting",
            seq: event.seq,
          });
        }
        bars.push(...hookBars(event, ledgerBySeq.get(event.seq), origin, key));
      }
      continue;
    }
    const event = row.event;
    seeEnd(at(event));
    if (event.type === "model.pre") {
      // A second model.pre before a model.post: the call before it was retried.
      closeModel(undefined, "retried", at(event));
      openModel = { pre: event, index: bars.length };
      bars.push({ key: `model:${event.seq}`, kind: "model", label: `model call · turn ${String(event.data.turn ?? "?")}`, startMs: at(event) - origin, durationMs: undefined, depth: 0, status: "running", seq: event.seq });
      bars.push(...hookBars(event, ledgerBySeq.get(event.seq), origin, `model:${event.seq}`));
      continue;
    }
    if (event.type === "model.post") {
      if (openModel) closeModel(event, "done", at(event));
      continue;
    }
    if (event.type === "error" || event.type === "session.end") closeModel(undefined, "error", at(event));
    // Other events show only when a hook ran on them (session.start, user.prompt.submit, session.end...).
    const hooks = (ledgerBySeq.get(event.seq) ?? []).filter((r) => r.matched);
    if (hooks.length === 0) continue;
    bars.push({ key: `event:${event.seq}`, kind: "event", label: event.type, startMs: at(event) - origin, durationMs: 0, depth: 0, status: "done", seq: event.seq });
    bars.push(...hookBars(event, hooks, origin, `event:${event.seq}`));
  }

  for (const bar of bars) if (bar.durationMs !== undefined) seeEnd(origin + bar.startMs + bar.durationMs);
  if (now !== undefined && bars.some((b) => b.durationMs === undefined)) seeEnd(now);
  return { bars, totalMs: end - origin, latencyBySeq };
}
