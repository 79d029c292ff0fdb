import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptTurn } from "@/lib/core/agent/agent-spec";
import type { ToolResult } from "@/lib/core/agent/tool-types";
import { REMOVED_TOOL_RESULT, runAgentSession } from "./loop";
import type { LoopTransforms } from "./loop-ports";
import { createInMemoryCheckpointStore } from "./loop-state";
import type { ChatMessage } from "./providers/model-provider";
import { makeAgent, useFreshHarnesses } from "@/test/session-harness";

const fresh = useFreshHarnesses();

const script: ScriptTurn[] = [
  { text: "Reading the token.", toolCalls: [{ name: "shell", input: { command: "echo ran >> ran.log; echo token=sk-$(echo SECRET)" } }] },
  { text: "All done with sk-SECRET" },
];

const redact = (s: string) => s.replaceAll("sk-SECRET", "[redacted]");
const textOf = (m: ChatMessage) => (m.role === "tool_result" ? m.output : m.text);

/** Fake transforms that log every call (point, a summary of the data) and change what they are given. */
function recordingTransforms(log: string[]): LoopTransforms {
  return {
    async filterMessages(messages, { agent }) {
      log.push(`filter_messages(${agent.name}, ${messages.length})`);
      // Drop system reminders from what the model reads.
      return messages.filter((m) => m.role !== "system_reminder");
    },
    async prefilterHistory(messages) {
      log.push(`prefilter_llm_history(${messages.length})`);
      return messages.map((m) => (m.role === "user" ? { ...m, text: `${m.text} (prefiltered)` } : m));
    },
    async beforeCreateMessage(message) {
      log.push(`before_create_message(${message.role})`);
      return message.role === "assistant" ? { ...message, text: redact(message.text) } : message;
    },
    async afterCreateMessage(message) {
      log.push(`after_create_message(${message.role})`);
    },
    async afterToolCall(result, call, ok) {
      log.push(`after_tool_call_${ok ? "success" : "failure"}(${call.name})`);
      return { ...result, output: `${result.output}[checked]` };
    },
    async beforeStoreToolResult(result: ToolResult) {
      log.push(`before_store_tool_result(${result.output.includes("[checked]") ? "checked" : "raw"})`);
      return { ...result, output: redact(result.output) };
    },
  };
}

describe("agent loop: transforms (Standard Agents' transform hooks)", () => {
  it("fires each transform at its point, in order, and the data flows through", async () => {
    const h = fresh();
    h.onDispatch((e) => (e.type === "tool.post" ? { verdict: "allow", reminders: ["a reminder"] } : undefined));
    const log: string[] = [];
    const opts = h.options(makeAgent({ script }), { transforms: recordingTransforms(log) });
    const result = await runAgentSession(opts);

    expect(result.outcome).toBe("completed");
    expect(log).toEqual([
      "before_create_message(user)",
      "after_create_message(user)",
      "filter_messages(tester, 1)",
      "prefilter_llm_history(1)",
      "before_create_message(assistant)",
      "after_create_message(assistant)",
      "after_tool_call_success(shell)",
      "before_store_tool_result(checked)",
      "after_create_message(tool_result)",
      "before_create_message(system_reminder)",
      // Stored with model.pre's record (the event and the note that it fired go out together).
      "after_create_message(system_reminder)",
      "filter_messages(tester, 4)",
      "prefilter_llm_history(3)",
      "before_create_message(assistant)",
      "after_create_message(assistant)",
    ]);

    // What the model read: filtered and prefiltered copies (no reminder, the user text changed).
    const second = opts.provider.requests[1].messages;
    expect(second.map((m) => m.role)).toEqual(["user", "assistant", "tool_result"]);
    expect(second[0]).toEqual({ role: "user", text: "do the thing (prefiltered)" });
    expect(second[2]).toMatchObject({ role: "tool_result", output: "token=[redacted]\n[checked]" });

    // What was stored: the transcript keeps the reminder and the unfiltered user text, but the
    // create/store transforms' results are what it holds.
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool_result", "system_reminder", "assistant"]);
    expect(result.messages[0]).toEqual({ role: "user", text: "do the thing" });
    expect(result.messages.map(textOf).join("\n")).not.toContain("sk-SECRET");
    expect(result.response).toBe("All done with [redacted]");

    // Events carry the stored data, not the raw one.
    const toolPost = h.events.find((e) => e.type === "tool.post")!.data;
    expect(toolPost.output).toBe("token=[redacted]\n[checked]");
    const modelPosts = h.events.filter((e) => e.type === "model.post").map((e) => e.data.text);
    expect(modelPosts).toEqual(["Reading the token.", "All done with [redacted]"]);
    expect(h.count("loop.transform_error")).toBe(0);
  });

  it("hands each transform a copy: changing the argument in place does not change the transcript", async () => {
    const h = fresh();
    const opts = h.options(makeAgent({ script }), {
      transforms: {
        async filterMessages(messages) {
          for (const m of messages) {
            if (m.role === "user") m.text = "mutated";
            if (m.role === "tool_result") m.output = "mutated";
          }
          return messages;
        },
        async afterCreateMessage(message) {
          if (message.role === "assistant") message.text = "mutated too";
        },
      } satisfies LoopTransforms,
    });
    const result = await runAgentSession(opts);
    expect(result.outcome).toBe("completed");
    expect(result.messages.map(textOf)).toEqual(["do the thing", "Reading the token.", "token=sk-SECRET\n", "All done with sk-SECRET"]);
    // The model read the hook's own (changed) copy.
    expect(opts.provider.requests[1].messages.map(textOf)).toEqual(["mutated", "Reading the token.", "mutated"]);
  });

  it("a throwing transform is recorded and the data it was given is kept; the run completes", async () => {
    const h = fresh();
    const boom = async (): Promise<never> => {
      throw new Error("hook bug");
    };
    const opts = h.options(makeAgent({ script }), {
      transforms: {
        filterMessages: boom,
        prefilterHistory: boom,
        beforeCreateMessage: boom,
        afterCreateMessage: boom,
        afterToolCall: boom,
        beforeStoreToolResult: boom,
      } satisfies LoopTransforms,
    });
    const result = await runAgentSession(opts);
    expect(result.outcome).toBe("completed");
    expect(result.response).toBe("All done with sk-SECRET");
    expect(h.events.find((e) => e.type === "tool.post")!.data.output).toBe("token=sk-SECRET\n");
    expect(opts.provider.requests[1].messages.map((m) => m.role)).toEqual(["user", "assistant", "tool_result"]);
    const points = new Set(h.events.filter((e) => e.type === "loop.transform_error").map((e) => e.data.point));
    expect([...points].sort()).toEqual([
      "after_create_message", "after_tool_call_success", "before_create_message", "before_store_tool_result",
      "filter_messages", "prefilter_llm_history",
    ]);
    expect(h.events.find((e) => e.type === "loop.transform_error")!.data.message).toBe("hook bug");
    expect(h.count("error")).toBe(0);
  });

  it("refuses a result of the wrong shape (a changed role, split tool call and result, a non-string output)", async () => {
    const h = fresh();
    const opts = h.options(makeAgent({ script }), {
      transforms: {
        // Keeps the tool result but drops the assistant message that called it.
        async filterMessages(messages) {
          return messages.filter((m) => m.role !== "assistant");
        },
        async beforeCreateMessage(message) {
          return message.role === "assistant" ? { role: "user", text: "I am the user now" } : { role: "assistant", text: "x", toolCalls: [] };
        },
        async beforeStoreToolResult(result) {
          return { ...result, output: 42 } as unknown as ToolResult;
        },
      } satisfies LoopTransforms,
    });
    const result = await runAgentSession(opts);
    expect(result.outcome).toBe("completed");
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool_result", "assistant"]);
    expect(result.messages[0]).toEqual({ role: "user", text: "do the thing" });
    expect(result.messages[2]).toMatchObject({ output: "token=sk-SECRET\n" });
    expect(opts.provider.requests[1].messages).toHaveLength(3);
    const messages = h.events.filter((e) => e.type === "loop.transform_error").map((e) => `${e.data.point}: ${e.data.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^before_create_message: returned an invalid value: the role must stay (user|assistant)$/),
        expect.stringMatching(/^filter_messages: returned an invalid value: .*tool result call_1_1 answers no open tool call/),
        "before_store_tool_result: returned an invalid value: a tool result needs a string output",
      ]),
    );
  });

  it("after_tool_call returning null removes the result: the call keeps an empty answer, failures are told apart", async () => {
    const h = fresh();
    const seen: boolean[] = [];
    const storeCalls: string[] = [];
    const opts = h.options(
      makeAgent({
        script: [
          { text: "two", toolCalls: [{ name: "shell", input: { command: "exit 3" } }, { name: "shell", input: { command: "echo ok" } }] },
          { text: "done" },
        ],
      }),
      {
        transforms: {
          async afterToolCall(result, _call, ok) {
            seen.push(ok);
            return ok ? result : null;
          },
          async beforeStoreToolResult(result) {
            storeCalls.push(result.output);
            return result;
          },
        } satisfies LoopTransforms,
      },
    );
    const result = await runAgentSession(opts);
    expect(result.outcome).toBe("completed");
    expect(seen).toEqual([false, true]);
    expect(storeCalls).toEqual(["ok\n"]);
    const results = result.messages.filter((m) => m.role === "tool_result");
    expect(results).toEqual([
      expect.objectContaining({ output: REMOVED_TOOL_RESULT, isError: false }),
      expect.objectContaining({ output: "ok\n", isError: false }),
    ]);
    expect(h.events.filter((e) => e.type === "loop.tool_result_removed").map((e) => e.data)).toEqual([{ toolCallId: "call_1_1", toolName: "shell" }]);
  });

  it("checkpoint and resume are unaffected: tool results are transformed once, before they are checkpointed", async () => {
    class SimulatedCrash extends Error {}
    const reference = fresh();
    const refLog: string[] = [];
    const refResult = await runAgentSession(
      reference.options(makeAgent({ script }), { transforms: recordingTransforms(refLog), checkpoint: createInMemoryCheckpointStore() }),
    );
    const emits = reference.events.length;

    for (let crashAt = 1; crashAt <= emits; crashAt++) {
      const h = fresh();
      const store = createInMemoryCheckpointStore();
      const log: string[] = [];
      const crashing = h.options(makeAgent({ script }), { transforms: recordingTransforms(log), checkpoint: store });
      const record = crashing.emit;
      let emitted = 0;
      crashing.emit = (type, data) => {
        if (++emitted === crashAt) throw new SimulatedCrash(`crash at ${crashAt} (${type})`);
        return record(type, data);
      };
      await expect(runAgentSession(crashing)).rejects.toBeInstanceOf(SimulatedCrash);
      const where = `crash at emit ${crashAt}`;
      // The checkpoint never holds the raw secret: store-time transforms ran before it was saved.
      expect(JSON.stringify(store.saved() ?? {}), where).not.toContain("sk-SECRET");

      const resumed = await runAgentSession(h.options(makeAgent({ script }), { transforms: recordingTransforms(log), checkpoint: store }));
      expect(resumed.outcome, where).toBe("completed");
      expect(resumed.messages, where).toEqual(refResult.messages);
      const ran = path.join(h.workspace, "ran.log");
      expect(existsSync(ran) ? readFileSync(ran, "utf8") : "", where).toBe("ran\n");
      // A recorded tool result is not transformed again (its transforms ran with the tool).
      expect(log.filter((l) => l.startsWith("before_store_tool_result")).length, where).toBe(1);
    }
  });
});
