import { describe, expect, it } from "vitest";
import { FirstEventTracker, type BridgedRun } from "./first-event-tracker";

const AGENT = "a0000000-0000-4000-8000-000000000001";
const ME = "u0000000-0000-4000-8000-000000000001";
const SOMEONE_ELSE = "u0000000-0000-4000-8000-000000000002";
const OPENED = Date.parse("2026-05-01T10:00:00Z");

function run(id: string, fields: Partial<BridgedRun> = {}): BridgedRun {
  return {
    id,
    agentId: AGENT,
    source: "claude-code",
    status: "running",
    lastSeq: 0,
    createdAt: "2026-05-01T10:00:05Z",
    actor: { userId: ME, label: "me@example.com", machine: { host: "laptop" } },
    ...fields,
  };
}

const event = (type = "session.start") => ({ type, ts: "2026-05-01T10:00:06Z", data: {} });
const tracker = (before: BridgedRun[] = []) => new FirstEventTracker({ agentId: AGENT, userId: ME, source: "claude-code" }, { runs: before, since: OPENED });

describe("the first event of a person's coding agent since the page opened", () => {
  it("a new session of this person is streamed from its start; its first event is the one, with the host its CLI reported", () => {
    const check = tracker();
    expect(check.seeRun(run("r1"))).toEqual({ runId: "r1", after: 0 });
    expect(check.seeRun(run("r1", { lastSeq: 1 }))).toBeUndefined(); // streamed already
    expect(check.seeEvent("r1", 1, event())).toEqual({ runId: "r1", seq: 1, ...event(), host: "laptop" });
    // Found once: later events and runs change nothing.
    expect(check.seeEvent("r1", 2, event("tool.pre"))).toBeUndefined();
    expect(check.seeRun(run("r2"))).toBeUndefined();
    expect(check.arrived?.seq).toBe(1);
    expect(check.streams()).toEqual([]);
  });

  it("another person's session, another agent's or another coding agent's is never streamed", () => {
    const check = tracker();
    expect(check.seeRun(run("theirs", { actor: { userId: SOMEONE_ELSE, label: "them@example.com" } }))).toBeUndefined();
    expect(check.seeRun(run("token", { actor: { label: "ci token" } }))).toBeUndefined();
    expect(check.seeRun(run("other-agent", { agentId: "a0000000-0000-4000-8000-000000000002" }))).toBeUndefined();
    expect(check.seeRun(run("codex", { source: "codex" }))).toBeUndefined();
    // Their events, should any reach it, do not count either.
    expect(check.seeEvent("theirs", 1, event())).toBeUndefined();
    expect(check.arrived).toBeUndefined();
  });

  it("a session open when the page opened is streamed from the start, and only its new events count", () => {
    const check = tracker([run("open", { lastSeq: 7, createdAt: "2026-05-01T09:00:00Z" }), run("done", { status: "finished", lastSeq: 3, createdAt: "2026-05-01T08:00:00Z" })]);
    expect(check.streams()).toEqual([{ runId: "open", after: 7 }]);
    expect(check.seeEvent("open", 7, event())).toBeUndefined();
    // A finished run's row announced again as it was (nothing new) is left alone.
    expect(check.seeRun(run("done", { status: "finished", lastSeq: 3, createdAt: "2026-05-01T08:00:00Z" }))).toBeUndefined();
    expect(check.seeEvent("open", 8, event("user.prompt.submit"))?.type).toBe("user.prompt.submit");
  });

  it("a finished session resumed is streamed after the seq it had", () => {
    const check = tracker([run("done", { status: "finished", lastSeq: 3, createdAt: "2026-05-01T08:00:00Z" })]);
    expect(check.seeRun(run("done", { status: "running", lastSeq: 3, createdAt: "2026-05-01T08:00:00Z" }))).toEqual({ runId: "done", after: 3 });
  });

  it("an old run the page did not list (beyond its page) counts from its seq now, not from its first event", () => {
    const check = tracker();
    expect(check.seeRun(run("old", { status: "finished", lastSeq: 40, createdAt: "2026-04-01T00:00:00Z" }))).toBeUndefined();
    expect(check.seeRun(run("older", { status: "running", lastSeq: 12, createdAt: "2026-04-01T00:00:00Z" }))).toEqual({ runId: "older", after: 12 });
    expect(check.seeEvent("older", 5, event())).toBeUndefined();
  });

  it("on a reconnect, every streamed run is asked for again from where it counts", () => {
    const check = tracker([run("open", { lastSeq: 2, createdAt: "2026-05-01T09:00:00Z" })]);
    check.seeRun(run("new"));
    expect(check.streams()).toEqual([
      { runId: "open", after: 2 },
      { runId: "new", after: 0 },
    ]);
    expect(check.streamedRuns()).toEqual(["open", "new"]);
  });
});
