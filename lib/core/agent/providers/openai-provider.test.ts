import { describe, expect, it } from "vitest";
import { createProvider } from "./create-provider";
import type { ChatMessage } from "./model-provider";
import { recordingServerPerTest } from "./test-support/recording-server";

const server = recordingServerPerTest();

const tools = [
  {
    name: "shell",
    description: "run a command",
    inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
];

function completion(message: Record<string, unknown>, finish: string, usage: Record<string, unknown>) {
  return {
    body: {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 0,
      model: "gpt-test",
      choices: [{ index: 0, message: { role: "assistant", refusal: null, ...message }, finish_reason: finish, logprobs: null }],
      usage,
    },
  };
}

describe("openai provider", () => {
  it("round-trips a tool call with usage and cached tokens", async () => {
    const provider = createProvider("openai:gpt-test", {
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` },
      maxRetries: 0,
    });
    server.respond(
      completion(
        {
          content: null,
          tool_calls: [{ id: "call_a", type: "function", function: { name: "shell", arguments: '{"command":"ls"}' } }],
        },
        "tool_calls",
        { prompt_tokens: 120, completion_tokens: 15, total_tokens: 135, prompt_tokens_details: { cached_tokens: 100 } },
      ),
      completion({ content: "There are two files." }, "stop", { prompt_tokens: 160, completion_tokens: 8, total_tokens: 168 }),
    );

    const messages: ChatMessage[] = [{ role: "user", text: "What is here?" }];
    const first = await provider.complete({ model: "openai:gpt-test", system: "Be brief.", messages, tools });
    expect(first).toEqual({
      text: "",
      toolCalls: [{ id: "call_a", name: "shell", input: { command: "ls" } }],
      stopReason: "tool_calls",
      usage: { inputTokens: 120, outputTokens: 15, cachedTokens: 100 },
    });

    messages.push(
      { role: "assistant", text: first.text, toolCalls: first.toolCalls },
      { role: "tool_result", toolCallId: "call_a", toolName: "shell", output: "a\nb", isError: false },
      { role: "system_reminder", text: "hook audit: ls is fine" },
    );
    const second = await provider.complete({ model: "openai:gpt-test", system: "Be brief.", messages, tools });
    expect(second).toMatchObject({ text: "There are two files.", toolCalls: [], stopReason: "stop" });
    expect(second.usage).toEqual({ inputTokens: 160, outputTokens: 8, cachedTokens: 0 });

    expect(server.requests[0].url).toBe("/v1/chat/completions");
    expect(server.requests[0].headers.authorization).toBe("Bearer sk-test");
    expect(server.requests[0].body).toMatchObject({
      model: "gpt-test",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "What is here?" },
      ],
      tools: [{ type: "function", function: { name: "shell", description: "run a command", parameters: tools[0].inputSchema } }],
    });
    expect(server.requests[1].body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "What is here?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_a", type: "function", function: { name: "shell", arguments: '{"command":"ls"}' } }],
      },
      { role: "tool", tool_call_id: "call_a", content: "a\nb" },
      { role: "user", content: "<system-reminder>\nhook audit: ls is fine\n</system-reminder>" },
    ]);
  });

  it("omits tools when there are none and marks error results", async () => {
    const provider = createProvider("openai:gpt-test", {
      env: { OPENAI_API_KEY: "sk-test" },
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
    });
    server.respond(completion({ content: "ok" }, "stop", { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }));
    await provider.complete({
      model: "openai:gpt-test",
      messages: [
        { role: "user", text: "hi" },
        { role: "assistant", text: "", toolCalls: [{ id: "c1", name: "shell", input: {} }] },
        { role: "tool_result", toolCallId: "c1", toolName: "shell", output: "denied", isError: true },
      ],
      tools: [],
    });
    expect(server.requests[0].body).not.toHaveProperty("tools");
    expect((server.requests[0].body.messages as unknown[]).at(-1)).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: "Error: denied",
    });
  });

  it("throws on an HTTP error and on a missing key", async () => {
    const provider = createProvider("openai:gpt-test", {
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` },
      maxRetries: 0,
    });
    server.respond({ status: 400, body: { error: { message: "bad model", type: "invalid_request_error" } } });
    await expect(provider.complete({ model: "openai:x", messages: [], tools: [] })).rejects.toThrow(/bad model/);
    const keyless = createProvider("openai:gpt-test", { env: {} });
    await expect(keyless.complete({ model: "openai:x", messages: [], tools: [] })).rejects.toThrow(
      "OPENAI_API_KEY is not set",
    );
  });
});
