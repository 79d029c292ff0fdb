import { describe, expect, it } from "vitest";
import { createProvider } from "./create-provider";
import type { ChatMessage } from "./model-provider";
import { recordingServerPerTest } from "./test-support/recording-server";

const server = recordingServerPerTest();

const tools = [
  {
    name: "read_file",
    description: "read a file",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];

function message(content: unknown[], stop: string, usage: Record<string, unknown>) {
  return {
    body: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage,
    },
  };
}

describe("anthropic provider", () => {
  it("round-trips a tool_use / tool_result exchange with cache usage", async () => {
    const provider = createProvider("anthropic:claude-test", {
      env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url },
      maxRetries: 0,
    });
    server.respond(
      message(
        [
          { type: "text", text: "Let me look." },
          { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "README.md" } },
        ],
        "tool_use",
        { input_tokens: 20, output_tokens: 30, cache_read_input_tokens: 200, cache_creation_input_tokens: 5 },
      ),
      message([{ type: "text", text: "It is a readme." }], "end_turn", { input_tokens: 40, output_tokens: 6 }),
    );

    const messages: ChatMessage[] = [{ role: "user", text: "Summarize README.md" }];
    const first = await provider.complete({ model: "anthropic:claude-test", system: "Be brief.", messages, tools });
    expect(first).toEqual({
      text: "Let me look.",
      toolCalls: [{ id: "toolu_1", name: "read_file", input: { path: "README.md" } }],
      stopReason: "tool_use",
      usage: { inputTokens: 225, outputTokens: 30, cachedTokens: 200 },
    });

    messages.push(
      { role: "assistant", text: first.text, toolCalls: first.toolCalls },
      { role: "tool_result", toolCallId: "toolu_1", toolName: "read_file", output: "# Hi", isError: false },
      { role: "system_reminder", text: "context from a hook" },
    );
    const second = await provider.complete({ model: "anthropic:claude-test", system: "Be brief.", messages, tools });
    expect(second).toEqual({
      text: "It is a readme.",
      toolCalls: [],
      stopReason: "end_turn",
      usage: { inputTokens: 40, outputTokens: 6, cachedTokens: 0 },
    });

    expect(server.requests[0].url).toBe("/v1/messages");
    // This SDK generation sends the key as a bearer token; older ones used x-api-key.
    const auth = server.requests[0].headers["x-api-key"] ?? server.requests[0].headers.authorization;
    expect(auth).toMatch(/^(Bearer )?sk-ant-test$/);
    expect(server.requests[0].body).toMatchObject({
      model: "claude-test",
      system: "Be brief.",
      max_tokens: 8192,
      tools: [{ name: "read_file", description: "read a file", input_schema: tools[0].inputSchema }],
      messages: [{ role: "user", content: [{ type: "text", text: "Summarize README.md" }] }],
    });
    expect(server.requests[1].body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Summarize README.md" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me look." },
          { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "README.md" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "# Hi", is_error: false },
          { type: "text", text: "<system-reminder>\ncontext from a hook\n</system-reminder>" },
        ],
      },
    ]);
  });

  it("throws on an API error and on a missing key", async () => {
    const provider = createProvider("anthropic:claude-test", {
      env: { ANTHROPIC_API_KEY: "k" },
      baseURL: server.url,
      maxRetries: 0,
    });
    server.respond({ status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "bad request" } } });
    await expect(provider.complete({ model: "anthropic:x", messages: [{ role: "user", text: "hi" }], tools: [] })).rejects.toThrow(
      /bad request/,
    );
    const keyless = createProvider("anthropic:claude-test", { env: {} });
    await expect(keyless.complete({ model: "anthropic:x", messages: [], tools: [] })).rejects.toThrow(
      "ANTHROPIC_API_KEY is not set",
    );
  });
});
