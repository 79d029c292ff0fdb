import { expect, test } from "vitest";
import { addToTimeline, emptyTimeline, spanStatus, type TimelineEvent } from "./timeline-rows";

const ev = (seq: number, type: string, data: Record<string, unknown> = {}): TimelineEvent => ({ seq, type, ts: "", data });

test("a tool call's pre, approval, denial and post become one span; others stay rows", () => {
  let state = addToTimeline(emptyTimeline(), [ev(1, "session.start"), ev(2, "model.post"), ev(3, "tool.pre", { toolCallId: "c1" })]);
  expect(state.rows.map((r) => r.kind)).toEqual(["event", "event", "span"]);
  state = addToTimeline(state, [ev(4, "approval.requested", { toolCallId: "c1" })]);
  const span = state.rows[2];
  expect(span.kind === "span" && spanStatus(span.events)).toBe("waiting approval");
  state = addToTimeline(state, [ev(5, "approval.settled", { toolCallId: "c1" }), ev(6, "tool.post", { toolCallId: "c1", isError: false }), ev(7, "session.end")]);
  expect(state.rows).toHaveLength(4);
  const done = state.rows[2];
  expect(done.kind === "span" && done.events.map((e) => e.seq)).toEqual([3, 4, 5, 6]);
  expect(done.kind === "span" && spanStatus(done.events)).toBe("done");
});

test("a denied call is a denied span; earlier row objects are not mutated", () => {
  const first = addToTimeline(emptyTimeline(), [ev(1, "tool.pre", { toolCallId: "c" })]);
  const before = first.rows[0];
  const next = addToTimeline(first, [ev(2, "loop.tool_denied", { toolCallId: "c" })]);
  expect(before.kind === "span" && before.events).toHaveLength(1);
  const span = next.rows[0];
  expect(span.kind === "span" && spanStatus(span.events)).toBe("denied");
});

test("a call cut short by a crash reads interrupted; a wait nobody answered before the run ended reads abandoned", () => {
  const interrupted = [
    ev(1, "tool.pre", { toolCallId: "c1" }),
    ev(2, "loop.tool_interrupted", { toolCallId: "c1", retried: false }),
    ev(3, "tool.post", { toolCallId: "c1", isError: true }),
  ];
  expect(spanStatus(interrupted)).toBe("interrupted");
  const retried = [ev(1, "tool.pre", { toolCallId: "c1" }), ev(2, "loop.tool_interrupted", { toolCallId: "c1", retried: true }), ev(3, "tool.post", { toolCallId: "c1", isError: false })];
  expect(spanStatus(retried)).toBe("done");
  const abandoned = [ev(1, "tool.pre", { toolCallId: "c2" }), ev(2, "approval.requested", { toolCallId: "c2" }), ev(3, "approval.settled", { toolCallId: "c2", status: "abandoned" })];
  expect(spanStatus(abandoned)).toBe("abandoned");
  let state = emptyTimeline();
  state = addToTimeline(state, interrupted);
  expect(state.rows.filter((r) => r.kind === "span")).toHaveLength(1);
});
