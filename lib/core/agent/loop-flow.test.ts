import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgentSession, runFlow } from "./loop";
import type { AgentWithId } from "./loop-ports";
import { createInMemoryCheckpointStore } from "./loop-state";
import type { ModelRequest } from "./providers/model-provider";
import { createScriptedProvider } from "./providers/scripted-provider";
import { createHarness, makeAgent, spyProvider, type Harness } from "@/test/session-harness";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.cleanup());

const researcher = makeAgent({
  name: "researcher",
  instructions: "Find facts.",
  script: [{ toolCalls: [{ name: "list_files", input: {} }] }, { text: "facts: none" }],
});
const writer = makeAgent({ name: "writer", instructions: "Write it up.", script: [{ text: "Report: there are no facts." }] });
const pipeline = makeAgent({ name: "pipeline", flow: ["researcher", "writer"] });
const agents = new Map<string, AgentWithId>([researcher, writer, pipeline].map((a) => [a.name, a]));
const resolveAgent = async (name: string) => agents.get(name);

function providers() {
  const requests = new Map<string, ModelRequest[]>();
  return {
    requests,
    providerFor: (agent: AgentWithId) => {
      const spy = spyProvider(createScriptedProvider(agent.script));
      requests.set(agent.name, spy.requests);
      return spy;
    },
  };
}

describe("multi-agent flows", () => {
  it("runs the agents in sequence, each answer the next prompt, with agent.start/stop around each", async () => {
    const { requests, providerFor } = providers();
    const result = await runFlow(h.options(pipeline, { prompt: "research X", providerFor, resolveAgent }));

    expect(result).toMatchObject({ outcome: "completed", response: "Report: there are no facts.", totals: { turns: 3 } });
    expect(h.lifecycle().map((e) => e.type)).toEqual([
      "session.start",
      "agent.start", "user.prompt.submit", "model.pre", "model.post", "tool.pre", "tool.post", "model.pre", "model.post", "turn.end", "agent.stop",
      "agent.start", "user.prompt.submit", "model.pre", "model.post", "turn.end", "agent.stop",
      "session.end",
    ]);
    expect(h.events.filter((e) => e.type.startsWith("agent.")).map((e) => e.data)).toEqual([
      { agentName: "researcher" }, { agentName: "researcher" }, { agentName: "writer" }, { agentName: "writer" },
    ]);
    expect(requests.get("researcher")![0]).toMatchObject({ system: "Find facts.", messages: [{ role: "user", text: "research X" }] });
    expect(requests.get("writer")![0]).toMatchObject({ system: "Write it up.", messages: [{ role: "user", text: "facts: none" }] });
    expect(h.events.filter((e) => e.type === "user.prompt.submit").map((e) => e.data.prompt)).toEqual(["research X", "facts: none"]);
  });

  it("an agent.start block stops the flow as skipped; the blocked agent never runs nor stops", async () => {
    const { requests, providerFor } = providers();
    h.onDispatch((e) =>
      e.type === "agent.start" && e.data.agentName === "writer" ? { verdict: "block", reason: "writer is paused" } : undefined,
    );
    const result = await runAgentSession(h.options(pipeline, { providerFor, resolveAgent }));
    expect(result).toMatchObject({ outcome: "skipped", reason: "writer is paused" });
    expect(requests.has("writer")).toBe(false);
    expect(h.events.filter((e) => e.type === "agent.stop").map((e) => e.data.agentName)).toEqual(["researcher"]);
    expect(h.count("session.end")).toBe(1);
  });

  it("an unknown agent in the flow fails the run with an error event", async () => {
    const broken = makeAgent({ name: "broken", flow: ["researcher", "ghost"] });
    const { providerFor } = providers();
    const result = await runFlow(h.options(broken, { providerFor, resolveAgent }));
    expect(result).toMatchObject({ outcome: "failed", reason: 'flow broken: unknown agent "ghost"' });
    expect(h.lifecycle().map((e) => e.type).slice(-3)).toEqual(["agent.stop", "error", "session.end"]);
  });

  it("a failure inside an agent still stops that agent before session.end", async () => {
    const { providerFor } = providers();
    const result = await runFlow(
      h.options(pipeline, {
        providerFor: (agent: AgentWithId) =>
          agent.name === "writer" ? { complete: () => Promise.reject(new Error("writer model down")) } : providerFor(agent),
        resolveAgent,
      }),
    );
    expect(result).toMatchObject({ outcome: "failed", reason: "writer model down" });
    expect(h.lifecycle().map((e) => e.type).slice(-4)).toEqual(["model.pre", "agent.stop", "error", "session.end"]);
    expect(h.events.filter((e) => e.type === "agent.stop").map((e) => e.data.agentName)).toEqual(["researcher", "writer"]);
  });

  it("resumes a flow from its checkpoint in the second agent", async () => {
    const store = createInMemoryCheckpointStore();
    const { providerFor } = providers();
    const crashing = h.options(pipeline, { providerFor, resolveAgent, checkpoint: store });
    const record = crashing.emit;
    let crashed = false;
    crashing.emit = (type, data) => {
      if (type === "model.post" && !crashed && h.count("agent.start") === 2) {
        crashed = true;
        throw new Error("crash");
      }
      return record(type, data);
    };
    await expect(runFlow(crashing)).rejects.toThrow("crash");
    const result = await runFlow(h.options(pipeline, { providerFor, resolveAgent, checkpoint: store }));
    expect(result).toMatchObject({ outcome: "completed", response: "Report: there are no facts." });
    expect(h.count("agent.start")).toBe(2);
    expect(h.count("session.start")).toBe(1);
    expect(h.count("session.end")).toBe(1);
    expect(store.saved()!.completedStages.map((s) => s.agentName)).toEqual(["researcher"]);
  });
});
