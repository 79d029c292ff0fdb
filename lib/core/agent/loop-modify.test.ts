import { existsSync, readFileSync } from "node:fs";
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
