import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptTurn } from "@/lib/core/agent/agent-spec";
import { INTERRUPTED_OUTPUT, LoopInterrupted, runAgentSession } from "./loop";
import type { LedgerEntry } from "@/lib/core/hooks/ledger";
import { createHookRuntime } from "@/lib/core/hooks/runtime";
import { INTERRUPTED_HOOK, type SuspendPoint } from "@/lib/core/hooks/runtime-types";
import { hook } from "@/lib/core/hooks/testing/fakes";
import type { HookEffects, LifecycleEvent, SessionResult } from "./loop-ports";
import { createInMemoryCheckpointStore, type LoopState } from "./loop-state";
import { makeAgent, useFreshHarnesses, type Harness } from "@/test/session-harness";
import { hookEvent } from "../hooks/event";

class SimulatedCrash extends Error {}

// Every shell call appends its own line to ran.log, so the log shows how often each one ran.
const script: ScriptTurn[] = [
  { text: "first", toolCalls: [{ name: "shell", input: { command: "echo a >> ran.log" } }], usage: { inputTokens: 10, outputTokens: 1 } },
  {
    text: "second",
    toolCalls: [
      { name: "shell", input: { command: "echo b >> ran.log" } },
      { name: "shell", input: { command: "echo c >> ran.log" } },
    ],
    usage: { inputTokens: 20, outputTokens: 2 },
  },
  { text: "all done", usage: { inputTokens: 30, outputTokens: 3 } },
];

const fresh = useFreshHarnesses();

function ranLog(h: Harness): string {
  const file = path.join(h.workspace, "ran.log");
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

async function referenceRun(): Promise<{ result: SessionResult; emits: number; lifecycle: string[] }> {
  const h = fresh();
  // A hook reminder on tool.post makes the transcript depend on hook state surviving the crash too.
  h.onDispatch((e) => (e.type === "tool.post" ? { verdict: "allow", reminders: [`ran ${String(e.data.toolCallId)}`] } : undefined));
  const result = await runAgentSession(h.options(makeAgent({ script }), { checkpoint: createInMemoryCheckpointStore() }));
  expect(result.outcome).toBe("completed");
  expect(ranLog(h)).toBe("a\nb\nc\n");
  return { result, emits: h.events.length, lifecycle: h.lifecycle().map((e) => e.type) };
}

describe("agent loop: checkpoints", () => {
  it("resumes after a crash at every possible emit, running each tool once and firing one-time events once", async () => {
    const reference = await referenceRun();
    expect(reference.emits).toBeGreaterThan(15);

    for (let crashAt = 1; crashAt <= reference.emits; crashAt++) {
      const h = fresh();
      h.onDispatch((e) => (e.type === "tool.post" ? { verdict: "allow", reminders: [`ran ${String(e.data.toolCallId)}`] } : undefined));
      const store = createInMemoryCheckpointStore();
      const agent = makeAgent({ script });
      let emitted = 0;
      const crashing = h.options(agent, { checkpoint: store });
      const record = crashing.emit;
      crashing.emit = (type, data) => {
        if (++emitted === crashAt) throw new SimulatedCrash(`crash at emit ${crashAt} (${type})`);
        return record(type, data);
      };
      await expect(runAgentSession(crashing), `crash at ${crashAt}`).rejects.toBeInstanceOf(SimulatedCrash);
      expect(h.count("session.end"), `no session.end after crash ${crashAt}`).toBe(0);

      const resumed = await runAgentSession(h.options(agent, { checkpoint: store }));
      const where = `crash at emit ${crashAt}`;
      expect(resumed.outcome, where).toBe("completed");
      expect(resumed.response, where).toBe("all done");
      expect(ranLog(h), where).toBe("a\nb\nc\n");
      expect(resumed.messages, where).toEqual(reference.result.messages);
      expect(resumed.totals.inputTokens, where).toBe(60);
      expect(resumed.totals.turns, where).toBe(3);
      expect(h.count("session.start"), where).toBe(1);
      expect(h.count("session.end"), where).toBe(1);
      expect(h.count("user.prompt.submit"), where).toBe(1);
      if (crashAt > 1) expect(h.count("loop.resumed"), where).toBe(1);
      // At-least-once: the event that crashed is recorded again on resume, nothing else repeats.
      expect(h.count("tool.post"), where).toBeGreaterThanOrEqual(3);
      expect(h.count("tool.post"), where).toBeLessThanOrEqual(4);
      expect(h.count("model.post"), where).toBeLessThanOrEqual(4);
    }
  });

  it("a finished run resumed again returns its result without firing anything", async () => {
    const h = fresh();
    const store = createInMemoryCheckpointStore();
    const agent = makeAgent({ script });
    const first = await runAgentSession(h.options(agent, { checkpoint: store }));
    const before = h.events.length;
    const again = await runAgentSession(h.options(agent, { checkpoint: store }));
    expect(again.outcome).toBe(first.outcome);
    expect(again.messages).toEqual(first.messages);
    expect(h.events.length).toBe(before);
    expect(ranLog(h)).toBe("a\nb\nc\n");
  });

  it("a cancelled run stays cancelled on rerun: session.end fired once", async () => {
    const h = fresh();
    const store = createInMemoryCheckpointStore();
    const controller = new AbortController();
    h.onDispatch((e) => {
      if (e.type === "tool.post") controller.abort();
      return undefined;
    });
    const agent = makeAgent({ script });
    expect((await runAgentSession(h.options(agent, { checkpoint: store, signal: controller.signal }))).outcome).toBe("cancelled");
    expect((await runAgentSession(h.options(agent, { checkpoint: store }))).outcome).toBe("cancelled");
    expect(h.count("session.end")).toBe(1);
    expect(ranLog(h)).toBe("a\n");
  });

  it("a shutdown mid-tool ends nothing; the cut-short shell step is reported as interrupted, not run again", async () => {
    const h = fresh();
    const store = createInMemoryCheckpointStore();
    const shutdown = new AbortController();
    const agent = makeAgent({
      script: [
        { toolCalls: [{ name: "shell", input: { command: "echo once >> ran.log" } }] },
        { toolCalls: [{ name: "shell", input: { command: "sleep 0.5; echo slow >> ran.log" } }] },
        { text: "finished" },
      ],
    });
    h.onDispatch((e) => {
      if (e.type === "tool.pre" && e.data.toolCallId === "call_2_1" && !shutdown.signal.aborted) {
        setTimeout(() => shutdown.abort(new LoopInterrupted("worker shutting down")), 100);
      }
      return undefined;
    });
    await expect(runAgentSession(h.options(agent, { checkpoint: store, signal: shutdown.signal }))).rejects.toBeInstanceOf(LoopInterrupted);
    expect(h.count("session.end")).toBe(0);
    expect(ranLog(h)).toBe("once\n");
    expect(store.saved()!.stage.toolCalls.call_2_1).toMatchObject({ verdict: "allowed", startedAt: expect.any(Number) });
    expect(store.saved()!.stage.toolCalls.call_2_1.result).toBeUndefined();

    const resumed = await runAgentSession(h.options(agent, { checkpoint: store }));
    expect(resumed).toMatchObject({ outcome: "completed", response: "finished" });
    // At most once: the step may have done its work before it was cut short, so it is not repeated.
    expect(ranLog(h)).toBe("once\n");
    expect(h.count("session.start")).toBe(1);
    expect(h.count("session.end")).toBe(1);
    expect(h.events.filter((e) => e.type === "loop.tool_interrupted").map((e) => e.data)).toEqual([
      { toolCallId: "call_2_1", toolName: "shell", retried: false },
    ]);
    const posts = h.events.filter((e) => e.type === "tool.post" && e.data.toolCallId === "call_2_1");
    expect(posts.map((e) => e.data)).toEqual([expect.objectContaining({ output: INTERRUPTED_OUTPUT, isError: true })]);
    // tool.pre of the interrupted call is not asked twice: its verdict was checkpointed.
    expect(h.dispatched.filter((e) => e.type === "tool.pre" && e.data.toolCallId === "call_2_1")).toHaveLength(1);
  });

  it("a graceful shutdown lets the step in flight finish and records it once; past the grace it is cut short", async () => {
    for (const graceMs of [5_000, 50]) {
      const h = fresh();
      const store = createInMemoryCheckpointStore();
      const shutdown = new AbortController();
      const hardStop = new AbortController();
      const agent = makeAgent({ script: [{ toolCalls: [{ name: "shell", input: { command: "sleep 0.4; echo slow >> ran.log" } }] }, { text: "finished" }] });
      h.onDispatch((e) => {
        if (e.type === "tool.pre") {
          setTimeout(() => {
            shutdown.abort(new LoopInterrupted("worker shutting down", { hardStop: hardStop.signal }));
            setTimeout(() => hardStop.abort(), graceMs);
          }, 100);
        }
        return undefined;
      });
      await expect(runAgentSession(h.options(agent, { checkpoint: store, signal: shutdown.signal }))).rejects.toBeInstanceOf(LoopInterrupted);
      const finished = graceMs > 400;
      expect(ranLog(h)).toBe(finished ? "slow\n" : "");
      expect(store.saved()!.stage.toolCalls.call_1_1.result !== undefined).toBe(finished);
      const resumed = await runAgentSession(h.options(agent, { checkpoint: store }));
      expect(resumed.outcome).toBe("completed");
      expect(ranLog(h)).toBe(finished ? "slow\n" : "");
      const posts = h.events.filter((e) => e.type === "tool.post");
      expect(posts).toHaveLength(1);
      expect(posts[0].data.output === INTERRUPTED_OUTPUT).toBe(!finished);
      expect(h.count("loop.tool_interrupted")).toBe(finished ? 0 : 1);
    }
  });

  it("a call that only reads is run again after an interruption", async () => {
    const h = fresh();
    const store = createInMemoryCheckpointStore();
    const agent = makeAgent({ script: [{ toolCalls: [{ name: "list_files", input: {} }] }, { text: "listed" }] });
    const crash = new AbortController();
    h.onDispatch((e) => {
      // The worker dies right after the intent is stored: the call never returns.
      if (e.type === "tool.pre") queueMicrotask(() => crash.abort(new LoopInterrupted("killed")));
      return undefined;
    });
    await expect(runAgentSession(h.options(agent, { checkpoint: store, signal: crash.signal }))).rejects.toBeInstanceOf(LoopInterrupted);
    const resumed = await runAgentSession(h.options(agent, { checkpoint: store }));
    expect(resumed.outcome).toBe("completed");
    expect(h.events.filter((e) => e.type === "loop.tool_interrupted").map((e) => e.data.retried)).toEqual([true]);
    const post = h.events.filter((e) => e.type === "tool.post");
    expect(post).toHaveLength(1);
    expect(post[0].data.isError).toBe(false);
  });

  it("an agent's retryTools opts a side-effecting tool into running again; one it does not list runs at most once", async () => {
    for (const retryTools of [["shell"], ["list_files"]]) {
      const h = fresh();
      const store = createInMemoryCheckpointStore();
      const agent = makeAgent({ script: [{ toolCalls: [{ name: "shell", input: { command: "echo ran >> ran.log" } }] }, { text: "done" }], retryTools });
      const crash = new AbortController();
      // The worker dies right after the intent is stored, before the shell starts.
      h.onDispatch((e) => (e.type === "tool.pre" && queueMicrotask(() => crash.abort(new LoopInterrupted("killed"))), undefined));
      await expect(runAgentSession(h.options(agent, { checkpoint: store, signal: crash.signal }))).rejects.toBeInstanceOf(LoopInterrupted);
      expect(ranLog(h)).toBe("");
      expect((await runAgentSession(h.options(agent, { checkpoint: store }))).outcome).toBe("completed");
      const retried = retryTools.includes("shell");
      expect(ranLog(h)).toBe(retried ? "ran\n" : "");
      expect(h.events.filter((e) => e.type === "loop.tool_interrupted").map((e) => e.data)).toEqual([
        { toolCallId: "call_1_1", toolName: "shell", retried },
      ]);
      const posts = h.events.filter((e) => e.type === "tool.post").map((e) => e.data);
      expect(posts).toEqual([expect.objectContaining(retried ? { isError: false } : { output: INTERRUPTED_OUTPUT, isError: true })]);
    }
  });

  it("a command hook in flight when the worker died is recorded as interrupted on resume, not run again", async () => {
    const h = fresh();
    // As in a run session, ledger rows are stored with the next checkpoint save (one batch).
    const rows: LedgerEntry[] = [];
    const staged: LedgerEntry[] = [];
    const memory = createInMemoryCheckpointStore();
    const store = { ...memory, save: async (state: LoopState) => (await memory.save(state), void rows.push(...staged.splice(0))) };
    const runtime = createHookRuntime({ allowCodeExecution: true, ledger: { record: (entries) => void staged.push(...entries) } });
    const hooks = [
      hook({ id: "deploy", event: "tool.pre", onFailure: "continue", action: { type: "command", command: `echo deploy >> ${path.join(h.workspace, "ran.log")}` } }),
    ];
    const agent = makeAgent({ script: [{ toolCalls: [{ name: "list_files", input: {} }] }, { text: "done" }] });
    let crashed = false;
    const options = (crash: boolean) => ({
      ...h.options(agent, { checkpoint: store }),
      dispatch: async (e: LifecycleEvent, resume?: { point: SuspendPoint }, effects?: HookEffects) => {
        const result = await runtime.dispatch(hooks, hookEvent({ type: e.type, runId: "run_1", agentName: agent.name, ts: 0, seq: e.seq, data: e.data }), { ...(resume && { resume: resume.point }), ...effects });
        // The worker dies once the command ran, before the loop could store that it finished.
        if (crash && e.type === "tool.pre" && !crashed) {
          crashed = true;
          throw new SimulatedCrash("killed after the hook ran");
        }
        return { verdict: result.verdict, reminders: result.reminders, context: result.context };
      },
    });
    await expect(runAgentSession(options(true))).rejects.toBeInstanceOf(SimulatedCrash);
    expect(ranLog(h)).toBe("deploy\n");
    staged.length = 0; // died with the worker
    expect(memory.saved()!.firing).toEqual({ event: "tool.pre", key: "tool.pre:call_1_1", progress: { hookId: "deploy" } });
    const resumed = await runAgentSession(options(false));
    expect(resumed.outcome).toBe("completed");
    expect(ranLog(h)).toBe("deploy\n");
    // The crashed dispatch's row was never written; the resumed one says the hook was interrupted.
    expect(rows.map((r) => [r.hookId, r.failed, r.reason])).toEqual([["deploy", true, `${INTERRUPTED_HOOK} (onFailure: continue)`]]);
    expect(h.count("tool.pre")).toBe(1);
    expect(h.count("tool.post")).toBe(1);
  });

  it("a tool.post, recorded after its hooks: a crash in a hook's effect leaves no event, and the resumed loop records it once, redacted", async () => {
    const h = fresh();
    const rows: LedgerEntry[] = [];
    const runtime = createHookRuntime({ allowCodeExecution: true, ledger: { record: (entries) => void rows.push(...entries) } });
    const hooks = [
      hook({ id: "notify", event: "tool.post", onFailure: "continue", action: { type: "command", command: `echo notified >> ${path.join(h.workspace, "ran.log")}` } }),
      hook({ id: "keys", event: "tool.post", action: { type: "modify", redact: ["sk-live-[a-z0-9]+"] } }),
    ];
    const agent = makeAgent({ script: [{ toolCalls: [{ name: "shell", input: { command: "printf 'key=sk-%s' live-abc123" } }] }, { text: "done" }] });
    const store = createInMemoryCheckpointStore();
    let crashed = false;
    const recorded: { type: string; data: Record<string, unknown>; options?: unknown }[] = [];
    const options = (crash: boolean) => ({
      ...h.options(agent, { checkpoint: store }),
      emit: (type: string, data: Record<string, unknown>, options?: unknown) => void recorded.push({ type, data: structuredClone(data), ...(options !== undefined && { options }) }),
      dispatch: async (e: LifecycleEvent, resume?: { point: SuspendPoint }, effects?: HookEffects) => {
        const result = await runtime.dispatch(hooks, hookEvent({ type: e.type, runId: "run_1", agentName: agent.name, ts: 0, seq: e.seq, data: e.data }), { ...(resume && { resume: resume.point }), ...effects });
        // The worker dies once the command ran, before the loop could record the event.
        if (crash && e.type === "tool.post" && !crashed) {
          crashed = true;
          throw new SimulatedCrash("killed after the hook ran");
        }
        return { verdict: result.verdict, reminders: result.reminders, context: result.context, ...(result.toolOutput && { toolOutput: result.toolOutput }), ...(result.redaction && { redaction: result.redaction }) };
      },
    });
    await expect(runAgentSession(options(true))).rejects.toBeInstanceOf(SimulatedCrash);
    expect(recorded.filter((e) => e.type === "tool.post")).toEqual([]);
    expect(store.saved()!.firing).toEqual({ event: "tool.post", key: "tool.post:call_1_1", unrecorded: true, progress: { hookId: "notify" } });
    rows.length = 0;
    const resumed = await runAgentSession(options(false));
    expect(resumed.outcome).toBe("completed");
    expect(ranLog(h)).toBe("notified\n");
    expect(recorded.filter((e) => e.type === "tool.post").map((e) => [e.data.output, e.data.redacted, e.options])).toEqual([["key=[REDACTED]", true, { dispatched: true }]]);
    expect(rows.map((r) => [r.hookId, r.failed])).toEqual([
      ["notify", true],
      ["keys", false],
    ]);
  });

  it("checkpoints are plain JSON with the documented shape", async () => {
    const h = fresh();
    const store = createInMemoryCheckpointStore();
    await runAgentSession(h.options(makeAgent({ script }), { checkpoint: store }));
    const saved = store.saved()!;
    expect(saved).toMatchObject({
      version: 1,
      sessionStartFired: true,
      ended: true,
      ending: { outcome: "completed", response: "all done" },
      totals: { inputTokens: 60, outputTokens: 6, turns: 3 },
      stage: { index: 0, agentName: "tester", turns: 3, phase: "model", promptSubmitted: true },
    });
    // A finished turn's calls live on in the transcript; the checkpoint keeps only the turn in progress.
    expect(saved.stage.toolCalls).toEqual({});
    expect(saved.stage.messages).toContainEqual(
      expect.objectContaining({ role: "tool_result", toolCallId: "call_2_2", toolName: "shell", output: "", isError: false }),
    );
    expect(store.saves).toBeGreaterThan(10);
  });
});
