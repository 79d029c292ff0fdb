import { describe, expect, it } from "vitest";
import { createProvider, UnknownModelError } from "./create-provider";
import type { ChatMessage } from "./model-provider";
import { createScriptedProvider } from "./scripted-provider";

describe("scripted provider", () => {
  const script = [
    { text: "Listing.", toolCalls: [{ name: "shell", input: { command: "ls" } }], usage: { inputTokens: 100, outputTokens: 20 } },
    { text: "All done." },
  ];

  it("plays one turn per call, chosen by the assistant turns already in the transcript", async () => {
    const provider = createScriptedProvider(script);
    const messages: ChatMessage[] = [{ role: "user", text: "go" }];
    const first = await provider.complete({ model: "scripted", messages, tools: [] });
    expect(first).toEqual({
      text: "Listing.",
      toolCalls: [{ id: "call_1_1", name: "shell", input: { command: "ls" } }],
      stopReason: "tool_use",
      usage: { inputTokens: 100, outputTokens: 20, cachedTokens: 0 },
    });
    // Same transcript, same answer: deterministic and resumable.
    expect(await provider.complete({ model: "scripted", messages, tools: [] })).toEqual(first);

    messages.push(
      { role: "assistant", text: first.text, toolCalls: first.toolCalls },
      { role: "tool_result", toolCallId: "call_1_1", toolName: "shell", output: "a b", isError: false },
    );
    const second = await provider.complete({ model: "scripted", system: "sys", messages, tools: [] });
    // No usage in the turn: ceil(chars / 4). Input: "sys" 3 + "go" 2 + "Listing." 8 + "shell" 5 + '{"command":"ls"}' 16 + "a b" 3 = 37.
    expect(second).toEqual({
      text: "All done.",
      toolCalls: [],
      stopReason: "end_turn",
      usage: { inputTokens: 10, outputTokens: 3, cachedTokens: 0 },
    });
  });

  it("answers its final text after the script runs out", async () => {
    const provider = createScriptedProvider(script);
    const messages: ChatMessage[] = [
      { role: "user", text: "go" },
      { role: "assistant", text: "x", toolCalls: [] },
      { role: "assistant", text: "y", toolCalls: [] },
      { role: "assistant", text: "z", toolCalls: [] },
    ];
    const answer = await provider.complete({ model: "scripted", messages, tools: [] });
    expect(answer.text).toBe("All done.");
    expect(answer.toolCalls).toEqual([]);
  });

  it("is what createProvider returns for 'scripted'; unknown models are refused", async () => {
    const provider = createProvider("scripted", { script: [{ text: "hi" }] });
    expect((await provider.complete({ model: "scripted", messages: [], tools: [] })).text).toBe("hi");
    expect(() => createProvider("gemini:pro")).toThrow(UnknownModelError);
    expect(() => createProvider("openai:")).toThrow(UnknownModelError);
  });
  it("plays a turn's ifError when a call of the turn before was denied or failed, and fills in the prompt", async () => {
    const provider = createScriptedProvider([
      { text: "Writing.", toolCalls: [{ name: "write_file", input: { path: "a" } }] },
      { text: "Wrote a for “{{prompt}}”.", ifError: { text: "Could not write a for “{{prompt}}”." } },
    ]);
    const transcript = (isError: boolean): ChatMessage[] => [
      { role: "user", text: "the\n  task" },
      { role: "assistant", text: "Writing.", toolCalls: [{ id: "call_1_1", name: "write_file", input: { path: "a" } }] },
      { role: "tool_result", toolCallId: "call_1_1", toolName: "write_file", output: isError ? "denied by hook no-prod: nope" : "ok", isError },
    ];
    expect((await provider.complete({ model: "scripted", messages: transcript(false), tools: [] })).text).toBe("Wrote a for “the task”.");
    expect((await provider.complete({ model: "scripted", messages: transcript(true), tools: [] })).text).toBe("Could not write a for “the task”.");
    // An error before the last assistant turn is not this turn's: the plain turn plays.
    const older: ChatMessage[] = [...transcript(true), { role: "assistant", text: "x", toolCalls: [] }];
    expect((await createScriptedProvider([{ text: "one" }, { text: "two" }, { text: "three", ifError: { text: "three-error" } }]).complete({ model: "scripted", messages: older, tools: [] })).text).toBe("three");
  });
});
