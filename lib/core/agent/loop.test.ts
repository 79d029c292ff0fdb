import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createInMemoryMemoryStore } from "@/lib/features/tools/memory-store";
import { createToolRegistry } from "@/lib/features/tools/tool-registry";
import { runAgentSession } from "./loop";
import type { ModelProvider } from "./providers/model-provider";
import { createHarness, makeAgent, spyProvider, type Harness } from "@/test/session-harness";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.cleanup());

const SESSION_END_FIELDS = ["costUsd", "durationMs", "inputTokens", "metadata", "outcome", "outputTokens", "reason", "response"];

function sessionEnds() {
  return h.events.filter((e) => e.type === "session.end");
}

describe("agent loop: lifecycle", () => {
  it("fires every event in order with exactly the documented payload fields", async () => {
    const agent = makeAgent({
      instructions: "You are a tester.",
      script: [
        { text: "Writing.", toolCalls: [{ name: "shell", input: { command: "echo hi > out.txt" } }], usage: { inputTokens: 100, outputTokens: 10 } },
        { text: "Done: wrote out.txt", usage: { inputTokens: 150, outputTokens: 5 } },
      ],
    });
    const opts = h.options(agent, { vars: { last_run: "yesterday" } });
    const result = await runAgentSession(opts);

    expect(result).toMatchObject({
      outcome: "completed",
      response: "Done: wrote out.txt",
      totals: { inputTokens: 250, outputTokens: 15, cachedTokens: 0, costUsd: 265 / 1_000_000, turns: 2 },
    });
    expect(readFileSync(path.join(h.workspace, "out.txt"), "utf8")).toBe("hi\n");
    expect(h.lifecycle().map((e) => e.type)).toEqual([
      "session.start", "user.prompt.submit",
      "model.pre", "model.post", "tool.pre", "tool.post",
      "model.pre", "model.post", "turn.end",
      "session.end",
    ]);
    const byType = (t: string) => h.events.find((e) => e.type === t)!.data;
    expect(byType("session.start")).toEqual({ prompt: "do the thing", last_run: "yesterday" });
    expect(byType("user.prompt.submit")).toEqual({ prompt: "do the thing" });
    expect(byType("model.pre")).toEqual({ model: "scripted", turn: 1, messageCount: 1 });
    expect(byType("model.post")).toEqual({
      model: "scripted", turn: 1, stopReason: "tool_use", inputTokens: 100, outputTokens: 10, cachedTokens: 0,
      costUsd: 110 / 1_000_000, toolCallCount: 1, text: "Writing.",
    });
    expect(byType("tool.pre")).toEqual({ toolName: "shell", toolInput: { command: "echo hi > out.txt" }, toolCallId: "call_1_1" });
    expect(Object.keys(byType("tool.post")).sort()).toEqual(["durationMs", "isError", "output", "toolCallId", "toolInput", "toolName"]);
    expect(byType("tool.post")).toMatchObject({ output: "", isError: false });
    expect(byType("turn.end")).toEqual({ stopHookActive: false, response: "Done: wrote out.txt" });
    expect(Object.keys(byType("session.end")).sort()).toEqual(SESSION_END_FIELDS);
    expect(byType("session.end")).toMatchObject({ outcome: "completed", response: "Done: wrote out.txt", inputTokens: 250, outputTokens: 15 });
    // Every lifecycle event is both recorded and dispatched, once.
    expect(h.dispatched.map((e) => e.type)).toEqual(h.lifecycle().map((e) => e.type));
    // The model saw the system prompt and the tool result.
    const second = opts.provider.requests[1];
    expect(second.system).toBe("You are a tester.");
    expect(second.messages.at(-1)).toEqual({ role: "tool_result", toolCallId: "call_1_1", toolName: "shell", output: "", isError: false });
    expect(second.tools.map((t) => t.name)).toContain("shell");
  });

  it("a tool.pre block means the command never runs and the model gets the reason next call", async () => {
    const agent = makeAgent({
      script: [
        { toolCalls: [{ name: "shell", input: { command: "touch pwned" } }] },
        { text: "Understood, I will not." },
      ],
    });
    h.onDispatch((e) =>
      e.type === "tool.pre" && e.data.toolName === "shell"
        ? { verdict: "block", reason: "shell is off-limits", reminders: ["hook no-shell blocked shell: shell is off-limits"] }
        : undefined,
    );
    const opts = h.options(agent);
    const result = await runAgentSession(opts);

    expect(result.outcome).toBe("completed");
    expect(existsSync(path.join(h.workspace, "pwned"))).toBe(false);
    expect(h.count("tool.post")).toBe(0);
    expect(h.events.find((e) => e.type === "loop.tool_denied")?.data).toMatchObject({ toolName: "shell", reason: "shell is off-limits", by: "hook" });
    const next = opts.provider.requests[1].messages;
    expect(next.slice(-2)).toEqual([
      { role: "tool_result", toolCallId: "call_1_1", toolName: "shell", output: "Denied: shell is off-limits", isError: true },
      { role: "system_reminder", text: "hook no-shell blocked shell: shell is off-limits" },
    ]);
  });

  it("delivers reminders on the next call and model.pre context on this call", async () => {
    const agent = makeAgent({
      script: [{ toolCalls: [{ name: "list_files", input: {} }] }, { text: "ok" }],
    });
    h.onDispatch((e) => {
      if (e.type === "session.start") return { verdict: "allow", context: ["Never print secrets."] };
      if (e.type === "tool.post") return { verdict: "allow", reminders: ["audit: list_files ran"] };
      if (e.type === "model.pre" && e.data.turn === 2) return { verdict: "allow", context: ["turn two context"] };
      return undefined;
    });
    const opts = h.options(agent);
    await runAgentSession(opts);
    const [first, second] = opts.provider.requests;
    // Pending reminders go in right before the call, after the prompt they accompany.
    expect(first.messages).toEqual([
      { role: "user", text: "do the thing" },
      { role: "system_reminder", text: "Never print secrets." },
    ]);
    expect(second.messages.slice(-2)).toEqual([
      { role: "system_reminder", text: "audit: list_files ran" },
      { role: "system_reminder", text: "turn two context" },
    ]);
    // Reminders are not repeated on later calls: they are in the transcript once.
    expect(second.messages.filter((m) => m.role === "system_reminder")).toHaveLength(3);
  });

  it("puts a text that is both context and reminder of one dispatch in once", async () => {
    h.onDispatch((e) =>
      e.type === "model.pre" ? { verdict: "allow", context: ["be careful"], reminders: ["be careful", "hook x said hi"] } : undefined,
    );
    const opts = h.options(makeAgent({ script: [{ text: "ok" }] }));
    await runAgentSession(opts);
    expect(opts.provider.requests[0].messages).toEqual([
      { role: "user", text: "do the thing" },
      { role: "system_reminder", text: "be careful" },
      { role: "system_reminder", text: "hook x said hi" },
    ]);
  });

  it("offers only the agent's tools and denies the others without running them", async () => {
    const agent = makeAgent({
      tools: ["read_file"],
      script: [{ toolCalls: [{ name: "shell", input: { command: "touch nope" } }] }, { text: "fine" }],
    });
    const opts = h.options(agent);
    await runAgentSession(opts);
    expect(opts.provider.requests[0].tools.map((t) => t.name)).toEqual(["read_file"]);
    expect(existsSync(path.join(h.workspace, "nope"))).toBe(false);
    expect(h.count("tool.pre")).toBe(0);
    expect(opts.provider.requests[1].messages.at(-1)).toMatchObject({
      role: "tool_result",
      isError: true,
      output: 'Denied: tool "shell" is not available to agent tester',
    });
  });

  it("exposes the metadata file in session.end and as a loop fact when it changes", async () => {
    const agent = makeAgent({
      script: [{ toolCalls: [{ name: "write_file", input: { path: "meta.json", content: '{"shouldNotify":true}' } }] }, { text: "ok" }],
    });
    const readMetadata = async () => {
      const file = path.join(h.workspace, "meta.json");
      return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : undefined;
    };
    await runAgentSession(h.options(agent, { readMetadata }));
    expect(h.events.find((e) => e.type === "loop.metadata")?.data).toEqual({ metadata: { shouldNotify: true } });
    expect(sessionEnds()[0].data.metadata).toEqual({ shouldNotify: true });
  });

  it("prepends session.start hook output to the prompt of a scheduled run", async () => {
    h.onDispatch((e) => (e.type === "session.start" ? { verdict: "allow", output: "3 new messages" } : undefined));
    const opts = h.options(makeAgent({ script: [{ text: "ok" }] }), { prependSessionStartOutput: true });
    await runAgentSession(opts);
    expect(opts.provider.requests[0].messages).toEqual([{ role: "user", text: "3 new messages\n\ndo the thing" }]);
  });
});

describe("agent loop: outcomes", () => {
  it.each(["block", "skip"] as const)("session.start %s → skipped, no model call, one session.end", async (verdict) => {
    h.onDispatch((e) => (e.type === "session.start" ? { verdict, reason: "no new messages" } : undefined));
    const opts = h.options(makeAgent({ script: [{ text: "never" }] }));
    const result = await runAgentSession(opts);
    expect(result).toMatchObject({ outcome: "skipped", reason: "no new messages" });
    expect(opts.provider.requests).toHaveLength(0);
    expect(h.lifecycle().map((e) => e.type)).toEqual(["session.start", "session.end"]);
    expect(sessionEnds()[0].data).toMatchObject({ outcome: "skipped", reason: "no new messages" });
  });

  it("user.prompt.submit block → skipped with the reason", async () => {
    h.onDispatch((e) => (e.type === "user.prompt.submit" ? { verdict: "block", reason: "prompt mentions prod" } : undefined));
    const opts = h.options(makeAgent({ script: [{ text: "never" }] }));
    const result = await runAgentSession(opts);
    expect(result).toMatchObject({ outcome: "skipped", reason: "prompt mentions prod" });
    expect(opts.provider.requests).toHaveLength(0);
    expect(h.count("session.end")).toBe(1);
  });

  it("blocks on non-blocking events are ignored", async () => {
    h.onDispatch((e) => (e.type === "model.post" || e.type === "tool.post" ? { verdict: "block", reason: "nope" } : undefined));
    const agent = makeAgent({ script: [{ toolCalls: [{ name: "list_files", input: {} }] }, { text: "ok" }] });
    expect((await runAgentSession(h.options(agent))).outcome).toBe("completed");
  });

  it("maxTurns → max_turns", async () => {
    const loopForever = Array.from({ length: 10 }, () => ({ toolCalls: [{ name: "list_files", input: {} }] }));
    const opts = h.options(makeAgent({ maxTurns: 2, script: loopForever }));
    const result = await runAgentSession(opts);
    expect(result).toMatchObject({ outcome: "max_turns", reason: "reached maxTurns (2)" });
    expect(opts.provider.requests).toHaveLength(2);
    expect(h.count("tool.post")).toBe(2);
    expect(sessionEnds()).toHaveLength(1);
  });

  it("wall-clock timeout between steps → timeout", async () => {
    let clock = 1_000;
    const slowModel: ModelProvider = {
      async complete() {
        clock += 5_000; // the model took 5 s
        return { text: "", toolCalls: [{ id: "c1", name: "list_files", input: {} }], stopReason: "tool_use", usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0 } };
      },
    };
    const agent = makeAgent({ timeoutMs: 3_000 });
    const result = await runAgentSession(h.options(agent, { provider: slowModel, now: () => clock }));
    expect(result).toMatchObject({ outcome: "timeout", reason: "timed out after 3000 ms" });
    expect(h.count("tool.pre")).toBe(0);
    expect(sessionEnds()).toHaveLength(1);
    expect(sessionEnds()[0].data).toMatchObject({ outcome: "timeout", durationMs: 5_000 });
  });

  it("wall-clock timeout aborts a hung provider call → timeout, no error event", async () => {
    const hung: ModelProvider = {
      complete: ({ signal }) =>
        new Promise((_, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted by signal")))),
    };
    const agent = makeAgent({}, { timeoutMs: 150 });
    const result = await runAgentSession(h.options(agent, { provider: hung }));
    expect(result.outcome).toBe("timeout");
    expect(h.count("error")).toBe(0);
    expect(sessionEnds()).toHaveLength(1);
  });

  it("budget exceeded after a model call → budget, its tool calls never run", async () => {
    const agent = makeAgent({
      budgetUsd: 0.0001,
      script: [{ toolCalls: [{ name: "shell", input: { command: "touch ran" } }], usage: { inputTokens: 90, outputTokens: 20 } }],
    });
    const result = await runAgentSession(h.options(agent));
    expect(result.outcome).toBe("budget");
    expect(result.totals.costUsd).toBeCloseTo(0.00011, 10);
    expect(h.count("model.post")).toBe(1);
    expect(existsSync(path.join(h.workspace, "ran"))).toBe(false);
    expect(sessionEnds()[0].data).toMatchObject({ outcome: "budget", costUsd: result.totals.costUsd });
  });

  it("cancel mid-tool kills the command → cancelled, one session.end", async () => {
    const controller = new AbortController();
    const agent = makeAgent({
      script: [{ toolCalls: [{ name: "shell", input: { command: "sleep 10; touch finished" } }] }, { text: "never" }],
    });
    h.onDispatch((e) => {
      if (e.type === "tool.pre") setTimeout(() => controller.abort(), 150);
      return undefined;
    });
    const started = Date.now();
    const opts = h.options(agent, { signal: controller.signal });
    const result = await runAgentSession(opts);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ outcome: "cancelled", reason: "cancelled" });
    expect(opts.provider.requests).toHaveLength(1);
    expect(h.events.find((e) => e.type === "tool.post")?.data).toMatchObject({ isError: true, output: "[cancelled; process group killed]" });
    expect(h.count("error")).toBe(0);
    expect(sessionEnds()).toHaveLength(1);
    expect(sessionEnds()[0].data.outcome).toBe("cancelled");
  });

  it("a signal aborted before the start → cancelled before any model call", async () => {
    const controller = new AbortController();
    controller.abort();
    const opts = h.options(makeAgent({ script: [{ text: "x" }] }), { signal: controller.signal });
    expect((await runAgentSession(opts)).outcome).toBe("cancelled");
    expect(opts.provider.requests).toHaveLength(0);
    expect(h.lifecycle().map((e) => e.type)).toEqual(["session.start", "user.prompt.submit", "session.end"]);
  });

  it("a provider throw → error event, then failed, one session.end", async () => {
    let calls = 0;
    const flaky: ModelProvider = {
      async complete() {
        if (++calls === 2) throw new Error("503 upstream overloaded");
        return { text: "", toolCalls: [{ id: "c1", name: "list_files", input: {} }], stopReason: "tool_use", usage: { inputTokens: 10, outputTokens: 2, cachedTokens: 0 } };
      },
    };
    const result = await runAgentSession(h.options(makeAgent({}), { provider: flaky }));
    expect(result).toMatchObject({ outcome: "failed", reason: "503 upstream overloaded", totals: { inputTokens: 10, outputTokens: 2 } });
    const types = h.lifecycle().map((e) => e.type);
    expect(types.slice(-2)).toEqual(["error", "session.end"]);
    const error = h.events.find((e) => e.type === "error")!.data;
    expect(error.message).toBe("503 upstream overloaded");
    expect(String(error.stack)).toContain("Error: 503 upstream overloaded");
    expect(sessionEnds()).toHaveLength(1);
  });

  it("a tool infrastructure throw → failed", async () => {
    const memory = createInMemoryMemoryStore();
    memory.append = async () => {
      throw new Error("database is down");
    };
    const tools = createToolRegistry({ workspaceDir: h.workspace, memory });
    const agent = makeAgent({ script: [{ toolCalls: [{ name: "memory", input: { action: "append", file: "a.md", text: "x" } }] }] });
    const result = await runAgentSession(h.options(agent, { tools }));
    expect(result).toMatchObject({ outcome: "failed", reason: "database is down" });
    expect(h.count("tool.post")).toBe(0);
    expect(h.lifecycle().map((e) => e.type).slice(-3)).toEqual(["tool.pre", "error", "session.end"]);
  });

  it("sums tokens and cost over every call, cached tokens included", async () => {
    const provider: ModelProvider = {
      async complete({ messages }) {
        const turn = messages.filter((m) => m.role === "assistant").length;
        return turn < 2
          ? { text: "", toolCalls: [{ id: `c${turn}`, name: "list_files", input: {} }], stopReason: "tool_use", usage: { inputTokens: 1000, outputTokens: 100, cachedTokens: 800 } }
          : { text: "total", toolCalls: [], stopReason: "end_turn", usage: { inputTokens: 2000, outputTokens: 50, cachedTokens: 1500 } };
      },
    };
    // Cached input at a tenth of the price, as price tables do.
    const costOf = (_m: string, u: { inputTokens: number; outputTokens: number; cachedTokens: number }) =>
      ((u.inputTokens - u.cachedTokens) * 3 + u.cachedTokens * 0.3 + u.outputTokens * 15) / 1_000_000;
    const result = await runAgentSession(h.options(makeAgent({}), { provider: spyProvider(provider), costOf }));
    expect(result.totals).toMatchObject({ inputTokens: 4000, outputTokens: 250, cachedTokens: 3100, turns: 3 });
    const expected = 2 * ((200 * 3 + 800 * 0.3 + 100 * 15) / 1e6) + (500 * 3 + 1500 * 0.3 + 50 * 15) / 1e6;
    expect(result.totals.costUsd).toBeCloseTo(expected, 12);
    const postCosts = h.events.filter((e) => e.type === "model.post").reduce((n, e) => n + Number(e.data.costUsd), 0);
    expect(postCosts).toBeCloseTo(expected, 12);
    expect(sessionEnds()[0].data).toMatchObject({ inputTokens: 4000, outputTokens: 250 });
    expect(sessionEnds()[0].data.costUsd).toBeCloseTo(expected, 12);
  });
});
