import { describe, expect, it } from "vitest";
import type { LedgerRow } from "@/lib/platform/stream/protocol";
import { addToTimeline, emptyTimeline, type TimelineEvent } from "./timeline-rows";
import { buildWaterfall } from "./waterfall";

const T0 = Date.parse("2026-01-01T10:00:00.000Z");
let seq = 0;
const ev = (ms: number, type: string, data: Record<string, unknown> = {}): TimelineEvent => ({ seq: ++seq, type, ts: new Date(T0 + ms).toISOString(), data });
const ledger = (eventSeq: number, hookKey: string, extra: Partial<LedgerRow> = {}): LedgerRow => ({
  id: eventSeq * 100 + hookKey.length,
  eventSeq,
  hookKey,
  matched: true,
  verdict: "allow",
  reason: null,
  mode: "enforce",
  action: "log",
  durationMs: 4,
  exitCode: null,
  output: null,
  stderr: null,
  ignored: false,
  ...extra,
});

describe("the run's waterfall", () => {
  seq = 0;
  const start = ev(0, "session.start", { prompt: "go" });
  const pre1 = ev(10, "model.pre", { turn: 1 });
  const post1 = ev(850, "model.post", { text: "writing" });
  const toolPre = ev(860, "tool.pre", { toolName: "write_file", toolCallId: "c1" });
  const denied = ev(862, "loop.tool_denied", { toolName: "write_file", toolCallId: "c1", reason: "no prod" });
  const pre2 = ev(870, "model.pre", { turn: 2 });
  const retry = ev(900, "model.pre", { turn: 2 });
  const post2 = ev(1400, "model.post", { text: "patch" });
  const toolPre2 = ev(1410, "tool.pre", { toolName: "write_file", toolCallId: "c2" });
  const asked = ev(1411, "approval.requested", { toolCallId: "c2" });
  const settled = ev(3411, "approval.settled", { toolCallId: "c2", decision: "approve" });
  const toolPost2 = ev(3420, "tool.post", { toolName: "write_file", toolCallId: "c2", durationMs: 9, isError: false });
  const end = ev(3500, "session.end", { outcome: "completed" });
  const rows = addToTimeline(emptyTimeline(), [start, pre1, post1, toolPre, denied, pre2, retry, post2, toolPre2, asked, settled, toolPost2, end]).rows;
  const hooks = new Map<number, LedgerRow[]>([
    [toolPre.seq, [ledger(toolPre.seq, "no-prod", { verdict: "block", action: "block", durationMs: 1.5 })]],
    [end.seq, [ledger(end.seq, "log-output"), ledger(end.seq, "slack", { failed: true, durationMs: 20 }), ledger(end.seq, "skipped", { matched: false })]],
    [toolPre2.seq, [ledger(toolPre2.seq, "ask", { verdict: "allow", action: "approve", durationMs: 2000 })]],
  ]);
  const waterfall = buildWaterfall(rows, hooks);
  const bar = (key: string) => waterfall.bars.find((b) => b.key === key);

  it("each model call runs from its model.pre to its model.post; a retried call ends where the retry starts", () => {
    expect(bar(`model:${pre1.seq}`)).toMatchObject({ kind: "model", startMs: 10, durationMs: 840, status: "done", depth: 0 });
    expect(bar(`model:${pre2.seq}`)).toMatchObject({ startMs: 870, durationMs: 30, status: "retried" });
    expect(bar(`model:${retry.seq}`)).toMatchObject({ startMs: 900, durationMs: 500, status: "done" });
    // The latency the timeline shows on each model.post.
    expect(waterfall.latencyBySeq.get(post1.seq)).toBe(840);
    expect(waterfall.latencyBySeq.get(post2.seq)).toBe(500);
  });

  it("a tool call is its span: a denied one ends at its denial, with the hook that blocked it under it", () => {
    expect(bar("tool:c1")).toMatchObject({ kind: "tool", label: "write_file", startMs: 860, durationMs: 2, status: "denied" });
    expect(bar(`tool:c1:hook:${toolPre.seq * 100 + 7}`)).toMatchObject({ kind: "hook", label: "no-prod · tool.pre", startMs: 860, durationMs: 1.5, status: "blocked", depth: 1 });
  });

  it("an approval wait is a bar inside its tool call, and the tool's latency is the whole span", () => {
    expect(bar("tool:c2")).toMatchObject({ startMs: 1410, durationMs: 2010, status: "done" });
    expect(bar(`tool:c2:approval:${asked.seq}`)).toMatchObject({ kind: "approval", startMs: 1411, durationMs: 2000, status: "approve", depth: 1 });
    expect(waterfall.latencyBySeq.get(toolPost2.seq)).toBe(2010);
  });

  it("hooks of one event follow one another; a failed one says so; a skipped one is not drawn", () => {
    const endHooks = waterfall.bars.filter((b) => b.kind === "hook" && b.seq === end.seq);
    expect(endHooks.map((b) => [b.label, b.startMs, b.durationMs, b.status])).toEqual([
      ["log-output · session.end", 3500, 4, "allow"],
      ["slack · session.end", 3504, 20, "failed"],
    ]);
    expect(bar(`event:${end.seq}`)).toMatchObject({ kind: "event", label: "session.end", depth: 0 });
    // Events no hook ran on are not steps of the trace.
    expect(bar(`event:${start.seq}`)).toBeUndefined();
    expect(waterfall.totalMs).toBe(3524);
  });

  it("a step still running has no duration, and the trace reaches to now", () => {
    const live = addToTimeline(emptyTimeline(), [start, pre1]).rows;
    const open = buildWaterfall(live, new Map(), T0 + 5000);
    expect(open.bars).toEqual([expect.objectContaining({ kind: "model", durationMs: undefined, status: "running" })]);
    expect(open.totalMs).toBe(5000);
    expect(buildWaterfall([], new Map())).toEqual({ bars: [], totalMs: 0, latencyBySeq: new Map() });
  });
});
