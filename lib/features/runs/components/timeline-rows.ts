/**
 * Groups a run's events into timeline rows: a tool call's tool.pre, approval, denial and tool.post
 * become one span (keyed by toolCallId); every other event is a row of its own. Incremental, so
 * live events extend the rows without regrouping the whole run.
 */
export interface TimelineEvent {
  seq: number;
  type: string;
  ts: string;
  data: Record<string, unknown>;
}

export type TimelineRow =
  | { kind: "event"; key: string; event: TimelineEvent }
  | { kind: "span"; key: string; toolCallId: string; events: TimelineEvent[] };

export interface TimelineState {
  rows: TimelineRow[];
  spans: Map<string, number>;
}

export function emptyTimeline(): TimelineState {
  return { rows: [], spans: new Map() };
}

const SPAN_TYPES = new Set(["tool.pre", "approval.requested", "approval.settled", "loop.tool_denied", "tool.post"]);

/** Returns a new state (new rows array; touched spans replaced) with `events` added. */
export function addToTimeline(state: TimelineState, events: TimelineEvent[]): TimelineState {
  const rows = state.rows.slice();
  const spans = new Map(state.spans);
  for (const event of events) {
    const callId = typeof event.data.toolCallId === "string" ? event.data.toolCallId : undefined;
    if (callId && SPAN_TYPES.has(event.type)) {
      const at = spans.get(callId);
      if (at !== undefined) {
        const span = rows[at] as Extract<TimelineRow, { kind: "span" }>;
        rows[at] = { ...span, events: [...span.events, event] };
        continue;
      }
      spans.set(callId, rows.length);
      rows.push({ kind: "span", key: `span:${callId}:${event.seq}`, toolCallId: callId, events: [event] });
      continue;
    }
    rows.push({ kind: "event", key: `event:${event.seq}`, event });
  }
  return { rows, spans };
}

export type SpanStatus = "running" | "waiting approval" | "abandoned" | "interrupted" | "denied" | "error" | "done";

export function spanStatus(events: TimelineEvent[]): SpanStatus {
  const types = new Set(events.map((e) => e.type));
  if (types.has("loop.tool_denied")) return "denied";
  const post = events.find((e) => e.type === "tool.post");
  if (events.some((e) => e.type === "loop.tool_interrupted" && e.data.retried === false)) return "interrupted";
  if (post) return post.data.isError ? "error" : "done";
  if (types.has("approval.requested") && !types.has("approval.settled")) return "waiting approval";
  if (events.some((e) => e.type === "approval.settled" && e.data.status === "abandoned")) return "abandoned";
  return "running";
}
