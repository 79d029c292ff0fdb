/**
 * `anthropic:<model>` through the official SDK's messages API with tool_use / tool_result blocks.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { ContentBlockParam, MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import { sdkClientOptions, type HostedProviderOptions } from "./hosted-provider-options";
import { modelNameOf, reminderText, type ChatMessage, type ModelProvider, type ModelRequest, type ModelResponse } from "./model-provider";

export interface AnthropicProviderOptions extends HostedProviderOptions {
  /** The messages API requires a cap on the answer. */
  maxTokens?: number;
}

export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

/**
 * Neutral messages to Anthropic's alternating user/assistant turns. Tool results and reminders are
 * user-side blocks; consecutive ones merge into one user message, tool_result blocks first, as the
 * API requires them to open the message that follows a tool_use.
 */
export function toAnthropicMessages(messages: ChatMessage[]): MessageParam[] {
  const out: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  const push = (role: "user" | "assistant", block: ContentBlockParam) => {
    const last = out.at(-1);
    if (last && last.role === role) {
      if (block.type === "tool_result") {
        const firstNonResult = last.content.findIndex((b) => b.type !== "tool_result");
        if (firstNonResult === -1) last.content.push(block);
        else last.content.splice(firstNonResult, 0, block);
      } else last.content.push(block);
    } else out.push({ role, content: [block] });
  };
  for (const message of messages) {
    switch (message.role) {
      case "user":
        push("user", { type: "text", text: message.text });
        break;
      case "system_reminder":
        push("user", { type: "text", text: reminderText(message.text) });
        break;
      case "assistant":
        // The API rejects empty text blocks, and an assistant turn needs at least one block.
        if (message.text || message.toolCalls.length === 0) {
          push("assistant", { type: "text", text: message.text || "(no answer)" });
        }
        for (const call of message.toolCalls) {
          push("assistant", { type: "tool_use", id: call.id, name: call.name, input: call.input });
        }
        break;
      case "tool_result":
        push("user", {
          type: "tool_result",
          tool_use_id: message.toolCallId,
          content: message.output,
          is_error: message.isError,
        });
        break;
    }
  }
  return out;
}

export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  let client: Anthropic | undefined;
  return {
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const sdk = sdkClientOptions(options, "ANTHROPIC");
      // Only the key we were given: the SDK would otherwise pick up tokens and profiles from the server's env.
      client ??= new Anthropic({ ...sdk, authToken: null, credentials: null, profile: null });
      const tools: Tool[] = request.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: { type: "object", ...tool.inputSchema },
      }));
      const message = await client.messages.create(
        {
          model: modelNameOf(request.model, "anthropic"),
          max_tokens: options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
          ...(request.system && { system: request.system }),
          messages: toAnthropicMessages(request.messages),
          ...(tools.length > 0 && { tools }),
        },
        { signal: request.signal },
      );
      let text = "";
      const toolCalls: ModelResponse["toolCalls"] = [];
      for (const block of message.content) {
        if (block.type === "text") text += block.text;
        else if (block.type === "tool_use") {
          toolCalls.push({ id: block.id, name: block.name, input: (block.input ?? {}) as Record<string, unknown> });
        }
      }
      const usage = message.usage;
      const cacheRead = usage.cache_read_input_tokens ?? 0;
      const cacheWrite = usage.cache_creation_input_tokens ?? 0;
      return {
        text,
        toolCalls,
        stopReason: message.stop_reason ?? "unknown",
        usage: {
          // Anthropic reports cache reads and writes apart from input_tokens; the neutral count includes them.
          inputTokens: usage.input_tokens + cacheRead + cacheWrite,
          outputTokens: usage.output_tokens,
          cachedTokens: cacheRead,
        },
      };
    },
  };
}
