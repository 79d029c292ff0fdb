/**
 * turn.end (Claude Code's Stop) and agent.stop as blocking events: a block keeps the agent working
 * with the hook's reason as the next user message, bounded by maxTurns.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgentSession } from "./loop";
import type { AgentWithId } from "./loop-ports";
import { createInMemoryCheckpointStore } from "./loop-state";
import type { ModelProvider, ModelRequest } from "./providers/model-provider";
import { createScriptedProvider } from "./providers/scripted-provider";
import { createHarness, makeAgent, type Harness } from "@/test/session-harness";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.cleanup());

const turnEnds = () => h.events.filter((e) => e.type === "turn.end").map((e) => e.data);

describe("turn.end", () => {
  it("fires after an answer without tool calls only, before session.end", async () => {
    const agent = makeAgent({
      script: [{ text: "Looking.", toolCalls: [{ name: "list_files", input: {} }] }, { text: "Nothing there." }],
    });
    await runAgentSession(h.options(agent));
    expect(h.lifecycle().map((e) => e.type)).toEqual([
      "session.start", "user.prompt.submit", "model.pre", "model.post", "tool.pre", "tool.post", "model.pre", "model.post", "turn.end", "session.end",
    ]);
    expect(turnEnds()).toEqual([{ stopHookActive: false, response: "Nothing there." }]);
  });

  it("a block keeps the agent working: the reason is the next user message, stopHookActive is set after it", async () => {
    const agent = makeAgent({ script: [{ text: "Done." }, { text: "Tests pass now." }] });
    h.onDispatch((e) =>
      e.type === "turn.end" && e.data.stopHookActive === false ? { verdict: "block", reason: "Run the tests before you stop." } : undefined,
    );
    const opts = h.options(agent);
    const result = await runAgentSession(opts);

    expect(result).toMatchObject({ outcome: "completed", response: "Tests pass now.", totals: { turns: 2 } });
    expect(turnEnds()).toEqual([
      { stopHookActive: false, response: "Done." },
      { stopHookActive: true, response: "Tests pass now." },
    ]);
    expect(opts.provider.requests[1].messages).toEqual([
      { role: "user", text: "do the thing" },
      { role: "assistant", text: "Done.", toolCalls: [] },
      { role: "user", text: "Run the tests before you stop." },
    ]);
    expect(h.lifecycle().map((e) => e.type)).toEqual([
      "session.start", "user.prompt.submit", "model.pre", "model.post", "turn.end", "model.pre", "model.post", "turn.end", "session.end",
    ]);
    expect(h.dispatched.filter((e) => e.type === "turn.end")).toHaveLength(2);
  });

  it("a hook that always blocks is bounded by maxTurns: the run ends max_turns, session.end once", async () => {
    const agent = makeAgent({ maxTurns: 3, script: [{ text: "Done." }] });
    h.onDispatch((e) => (e.type === "turn.end" ? { verdict: "block", reason: "again" } : undefined));
    const opts = h.options(agent);
    const result = await runAgentSession(opts);

    expect(result).toMatchObject({ outcome: "max_turns", reason: "reached maxTurns (3)", totals: { turns: 3 } });
    expect(turnEnds().map((d) => d.stopHookActive)).toEqual([false, true, true]);
    expect(opts.provider.requests).toHaveLength(3);
    expect(h.count("session.end")).toBe(1);
  });

  it("a block without a reason still sends the agent back, with a standing message", async () => {
    const agent = makeAgent({ maxTurns: 2, script: [{ text: "Done." }, { text: "Really done." }] });
    h.onDispatch((e) => (e.type === "turn.end" && e.data.stopHookActive === false ? { verdict: "block" } : undefined));
    const opts = h.options(agent);
    await runAgentSession(opts);
    expect(opts.provider.requests[1].messages.at(-1)).toEqual({ role: "user", text: "A hook asked you to keep working." });
  });

  it("context from a turn.end hook reaches the model with the reason", async () => {
    const agent = makeAgent({ script: [{ text: "Done." }, { text: "Fixed." }] });
    h.onDispatch((e) =>
      e.type === "turn.end" && !e.data.stopHookActive ? { verdict: "block", reason: "Lint fails.", context: ["src/a.ts:3 unused"] } : undefined,
    );
    const opts = h.options(agent);
    await runAgentSession(opts);
    expect(opts.provider.requests[1].messages.slice(2)).toEqual([
      { role: "user", text: "Lint fails." },
      { role: "system_reminder", text: "src/a.ts:3 unused" },
    ]);
  });

  it("a crash in the turn.end dispatch resumes without recording turn.end twice, and the block still holds", async () => {
    const agent = makeAgent({ script: [{ text: "Done." }, { text: "Checked." }] });
    const checkpoint = createInMemoryCheckpointStore();
    let crashed = false;
    h.onDispatch((e) => {
      if (e.type !== "turn.end") return undefined;
      if (!crashed) {
        crashed = true;
        throw new Error("database went away");
      }
      return e.data.stopHookActive ? undefined : { verdict: "block", reason: "check it" };
    });
    await expect(runAgentSession(h.options(agent, { checkpoint }))).rejects.toThrow("database went away");
    expect(h.count("session.end")).toBe(0);

    const result = await runAgentSession(h.options(agent, { checkpoint }));
    expect(result).toMatchObject({ outcome: "completed", response: "Checked." });
    expect(turnEnds()).toEqual([
      { stopHookActive: false, response: "Done." },
      { stopHookActive: true, response: "Checked." },
    ]);
    expect(h.dispatched.filter((e) => e.type === "turn.end").map((e) => e.data.stopHookActive)).toEqual([false, false, true]);
  });
});

describe("agent.stop in a flow", () => {
  const drafter = makeAgent({ name: "drafter", script: [{ text: "draft 1" }, { text: "draft 2 with sources" }] });
  const editor = makeAgent({ name: "editor", script: [{ text: "edited" }] });
  const flow = makeAgent({ name: "newsroom", flow: ["drafter", "editor"] });
  const agents = new Map<string, AgentWithId>([drafter, editor, flow].map((a) => [a.name, a]));
  const resolveAgent = async (name: string) => agents.get(name);

  function providers() {
    const requests = new Map<string, ModelRequest[]>();
    return {
      requests,
      // runTurns asks for a provider on each call: one request list per agent across them.
      providerFor: (agent: AgentWithId): ModelProvider => {
        const list = requests.get(agent.name) ?? [];
        requests.set(agent.name, list);
        const inner = createScriptedProvider(agent.script);
        return {
          complete(request) {
            list.push({ ...request, messages: structuredClone(request.messages), signal: undefined });
            return inner.complete(request);
          },
        };
      },
    };
  }

  it("a block sends the finished agent back to work with the reason; the next agent gets its new answer", async () => {
    const { requests, providerFor } = providers();
    let blocked = false;
    h.onDispatch((e) => {
      if (e.type !== "agent.stop" || e.data.agentName !== "drafter" || blocked) return undefined;
      blocked = true;
      return { verdict: "block", reason: "Cite your sources." };
    });
    const result = await runAgentSession(h.options(flow, { providerFor, resolveAgent }));

    expect(result).toMatchObject({ outcome: "completed", response: "edited" });
    expect(h.lifecycle().map((e) => e.type)).toEqual([
      "session.start",
      "agent.start", "user.prompt.submit", "model.pre", "model.post", "turn.end", "agent.stop",
      "model.pre", "model.post", "turn.end", "agent.stop",
      "agent.start", "user.prompt.submit", "model.pre", "model.post", "turn.end", "agent.stop",
      "session.end",
    ]);
    expect(requests.get("drafter")![1].messages.at(-1)).toEqual({ role: "user", text: "Cite your sources." });
    expect(requests.get("editor")![0].messages).toEqual([{ role: "user", text: "draft 2 with sources" }]);
    expect(h.events.filter((e) => e.type === "agent.start").map((e) => e.data.agentName)).toEqual(["drafter", "editor"]);
  });

  it("an agent.stop that always blocks ends the run on the agent's maxTurns; agent.stop fires once more at the end", async () => {
    const stubborn = makeAgent({ name: "stubborn", maxTurns: 2, script: [{ text: "no" }] });
    const solo = makeAgent({ name: "solo", flow: ["stubborn"] });
    const { providerFor } = providers();
    h.onDispatch((e) => (e.type === "agent.stop" ? { verdict: "block", reason: "keep going" } : undefined));
    const result = await runAgentSession(
      h.options(solo, { providerFor, resolveAgent: async (n: string) => (n === "stubborn" ? stubborn : undefined) }),
    );
    expect(result).toMatchObject({ outcome: "max_turns", totals: { turns: 2 } });
    // Two sent back, then the closing agent.stop of a started agent (whose block is ignored: the run ends).
    expect(h.count("agent.stop")).toBe(3);
    expect(h.count("session.end")).toBe(1);
  });
});
