import { describe, expect, it } from "vitest";
import { summarizeEvent } from "@/lib/core/hooks/event-summary";
import { describeLoopEvent } from "@/lib/core/hooks/event-summary";
import { cancelNotice, costLabel, formatDurationMs, hookChip, liveStateText, runDurationMs, verdictText } from "./run-text";

describe("what the run pages say about a run", () => {
  it("a finished run has a cost; only a run still going has a cost so far", () => {
    expect(costLabel("finished")).toBe("cost");
    for (const status of ["queued", "running", "waiting_approval"]) expect(costLabel(status)).toBe("cost so far");
  });

  it("the first paint is connecting, not reconnecting; only a dropped feed reconnects", () => {
    expect(liveStateText({ socketState: "connecting", paused: false, heldCount: 0 })).toBe("connecting…");
    expect(liveStateText({ socketState: "open", paused: false, heldCount: 0 })).toBe("live");
    expect(liveStateText({ socketState: "open", paused: true, heldCount: 3 })).toBe("paused (3 new)");
    expect(liveStateText({ socketState: "closed", paused: false, heldCount: 0 })).toBe("reconnecting…");
    expect(liveStateText({ socketState: "reconnecting", paused: false, heldCount: 0 })).toBe("reconnecting…");
  });

  it("'Cancel requested' is said while the run runs, never once it finished", () => {
    expect(cancelNotice("Cancel requested", "running")).toBe("Cancel requested");
    expect(cancelNotice("Cancel requested", "waiting_approval")).toBe("Cancel requested");
    expect(cancelNotice("Cancel requested", "finished")).toBeUndefined();
    expect(cancelNotice(undefined, "running")).toBeUndefined();
  });

  it("a duration nobody measured is —, never 0 ms", () => {
    expect(formatDurationMs(undefined)).toBe("—");
    expect(formatDurationMs(null)).toBe("—");
    expect(formatDurationMs("12")).toBe("—");
    expect(formatDurationMs(Number.NaN)).toBe("—");
    expect(formatDurationMs(0)).toBe("<1 ms");
    expect(formatDurationMs(12.4)).toBe("12 ms");
    expect(formatDurationMs(1500)).toBe("1.50 s");
    expect(formatDurationMs(125_000)).toBe("2 min 5 s");
  });

  it("a run's duration: from its start to its end, or to now while it runs; none before it started", () => {
    const startedAt = "2026-01-01T10:00:00.000Z";
    expect(runDurationMs({ startedAt, finishedAt: "2026-01-01T10:00:02.500Z" })).toBe(2500);
    expect(runDurationMs({ startedAt }, Date.parse("2026-01-01T10:00:01.000Z"))).toBe(1000);
    // Still running and no clock (the server render): nothing, rather than a number that is wrong a second later.
    expect(runDurationMs({ startedAt })).toBeUndefined();
    expect(runDurationMs({ startedAt: null, finishedAt: null }, Date.now())).toBeUndefined();
  });

  it("the loop's own records read as sentences, not as JSON", () => {
    expect(describeLoopEvent("loop.resumed", { stage: 0, phase: "tools", turn: 2 })).toBe("resumed from its checkpoint after 2 turns, in its tool calls");
    expect(summarizeEvent("loop.resumed", { stage: 0, phase: "model", turn: 1 })).toBe("resumed from its checkpoint after 1 turn, before its model call");
    expect(summarizeEvent("loop.resumed", { stage: 0, phase: "tools", turn: 2 })).not.toContain("{");
    expect(summarizeEvent("loop.tool_interrupted", { toolName: "shell", retried: false })).toBe(
      "shell was cut short by a restart and not run again (it may have had its effect)",
    );
    expect(summarizeEvent("loop.transform_error", { point: "filter_messages", message: "boom" })).toBe(
      "a code hook failed at filter_messages: boom; the original data was kept",
    );
    // A type no summary knows: its fields in words, not a JSON object.
    expect(summarizeEvent("loop.something_new", { count: 3, name: "x" })).toBe("count 3 · name x");
  });
});

describe("the hook chip of a timeline entry", () => {
  const ran = { matched: true, verdict: "allow", ignored: false };
  it("a hook that failed is not hidden under a gray 'n/n hooks' chip", () => {
    // The demo's Slack notice: SLACK_BOT_TOKEN is not set, onFailure continue, so verdict allow.
    const rows = [ran, { ...ran, failed: true }];
    expect(hookChip(rows)).toEqual({ tone: "amber", text: "1 hook failed" });
    expect(hookChip([{ ...ran, timedOut: true }, { ...ran, failed: true }])).toEqual({ tone: "amber", text: "2 hooks failed" });
    expect(verdictText({ ...ran, failed: true })).toBe("failed → allow");
    expect(verdictText({ ...ran, timedOut: true, verdict: "block" })).toBe("timed out → block");
  });
  it("a block is red; hooks that all ran fine are gray, counted", () => {
    expect(hookChip([ran, { ...ran, verdict: "block" }])).toEqual({ tone: "red", text: "blocked by hook" });
    // A shadow block did not take effect: not a block.
    expect(hookChip([{ ...ran, verdict: "block", ignored: true }, { matched: false, verdict: null, ignored: false }])).toEqual({ tone: "zinc", text: "1/2 hooks" });
    expect(verdictText({ ...ran, verdict: "block", ignored: true })).toBe("block (ignored)");
    expect(hookChip([])).toBeUndefined();
  });
});
