import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgentSession } from "./loop";
import { createHarness, makeAgent, type Harness } from "@/test/session-harness";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.cleanup());

describe("agent loop: hooks that change a call", () => {
  it("runs the input tool.pre's hooks left, shows tool.post that input, and gives the model the replaced output", async () => {
    const agent = makeAgent({ script: [{ toolCalls: [{ name: "shell", input: { command: "touch pwned" } }] }, { text: "done" }] });
    h.onDispatch((e) => {
      if (e.type === "tool.pre") return { verdict: "allow", toolInput: { command: "echo safe > out.txt; echo sk-secret" }, modifiedBy: ["safe-shell"] };
      if (e.type === "tool.post") return { verdict: "allow", toolOutput: { value: "[REDACTED]" }, modifiedBy: ["keys"] };
      return undefined;
    });
    const opts = h.options(agent);
    const result = await runAgentSession(opts);

    expect(result.outcome).toBe("completed");
    expect(existsSync(path.join(h.workspace, "pwned"))).toBe(false);
    expect(readFileSync(path.join(h.workspace, "out.txt"), "utf8")).toBe("safe\n");
    const post = h.events.find((e) => e.type === "tool.post")!.data;
    expect(post).toMatchObject({ toolInput: { command: "echo safe > out.txt; echo sk-secret" }, output: "sk-secret\n" });
    expect(h.events.filter((e) => e.type === "loop.tool_modified").map((e) => e.data)).toEqual([
      { toolCallId: "call_1_1", toolName: "shell", kind: "input", input: { command: "echo safe > out.txt; echo sk-secret" }, by: ["safe-shell"] },
      { toolCallId: "call_1_1", toolName: "shell", kind: "output", by: ["keys"] },
    ]);
    expect(opts.provider.requests[1].messages.at(-1)).toEqual({ role: "tool_result", toolCallId: "call_1_1", toolName: "shell", output: "[REDACTED]", isError: false });
  });

  it("records a tool.post after its hooks, with the output a hook redacted in place of the tool's", async () => {
    const agent = makeAgent({ script: [{ toolCalls: [{ name: "shell", input: { command: "cat .env" } }] }, { text: "done" }] });
    writeFileSync(path.join(h.workspace, ".env"), "key=sk-live-1234\n");
    const recorded: { type: string; output?: unknown; options?: unknown; dispatchedBefore: number }[] = [];
    h.onDispatch((e) => {
      if (e.type !== "tool.post") return undefined;
      expect(e.seq).toBeUndefined();
      return { verdict: "allow", toolOutput: { value: "key=[REDACTED]\n" }, redaction: { output: "key=[REDACTED]\n", applied: true }, modifiedBy: ["keys"] };
    });
    const opts = h.options(agent, {
      emit: (type: string, data: Record<string, unknown>, options?: unknown) => {
        if (type === "tool.post") recorded.push({ type, output: data.output, options, dispatchedBefore: h.dispatched.filter((d) => d.type === "tool.post").length });
        h.events.push({ type, data: structuredClone(data) });
      },
    });
    await runAgentSession(opts);
    expect(recorded).toEqual([{ type: "tool.post", output: "key=[REDACTED]\n", options: { dispatched: true }, dispatchedBefore: 1 }]);
    expect(h.events.find((e) => e.type === "tool.post")!.data).toMatchObject({ output: "key=[REDACTED]\n", redacted: true });
    expect(h.events.find((e) => e.type === "tool.post")!.data).not.toHaveProperty("redactedInShadow");
    expect(JSON.stringify(h.events)).not.toContain("sk-live-1234");
    expect(opts.provider.requests[1].messages.at(-1)).toMatchObject({ role: "tool_result", output: "key=[REDACTED]\n" });
  });

  it("a redaction in shadow mode: the model reads the original, the record keeps the redacted output and says it was shadow", async () => {
    const agent = makeAgent({ script: [{ toolCalls: [{ name: "shell", input: { command: "cat .env" } }] }, { text: "done" }] });
    writeFileSync(path.join(h.workspace, ".env"), "key=sk-live-1234\n");
    h.onDispatch((e) => (e.type === "tool.post" ? { verdict: "allow", redaction: { output: "key=[REDACTED]\n", applied: false } } : undefined));
    const opts = h.options(agent);
    await runAgentSession(opts);
    expect(h.events.find((e) => e.type === "tool.post")!.data).toMatchObject({ output: "key=[REDACTED]\n", redacted: true, redactedInShadow: true });
    expect(h.count("loop.tool_modified")).toBe(0);
    expect(JSON.stringify(h.events)).not.toContain("sk-live-1234");
    expect(opts.provider.requests[1].messages.at(-1)).toMatchObject({ role: "tool_result", output: "key=sk-live-1234\n" });
  });

  it("refuses a call a hook wants its user asked about: this loop has no user of its own", async () => {
    const agent = makeAgent({ script: [{ toolCalls: [{ name: "shell", input: { command: "touch asked" } }] }, { text: "ok" }] });
    h.onDispatch((e) => (e.type === "tool.pre" ? { verdict: "allow", askUser: { hookId: "confirm", reason: "deploys need a human" } } : undefined));
    const opts = h.options(agent);
    await runAgentSession(opts);
    expect(existsSync(path.join(h.workspace, "asked"))).toBe(false);
    expect(h.count("tool.post")).toBe(0);
    expect(h.events.find((e) => e.type === "loop.tool_denied")?.data).toMatchObject({
      reason: "Hookplane's agent loop has no user of its own to ask (hook confirm: deploys need a human); an approve hook asks a person",
      by: "hook",
    });
  });
});
