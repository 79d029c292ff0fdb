/**
 * `openai:<model>` through the official SDK's chat.completions with function calling. Any
 * OpenAI-compatible server works through `baseURL`.
 */
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { sdkClientOptions, type HostedProviderOptions } from "./hosted-provider-options";
import { modelNameOf, reminderText, type ChatMessage, type ModelProvider, type ModelRequest, type ModelResponse } from "./model-provider";

export type OpenAIProviderOptions = HostedProviderOptions;

export function toOpenAIMessages(system: string | undefined, messages: ChatMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = system ? [{ role: "system", content: system }] : [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
        out.push({ role: "user", content: message.text });
        break;
      case "system_reminder":
        out.push({ role: "user", content: reminderText(message.text) });
        break;
      case "assistant":
        out.push({
          role: "assistant",
          content: message.text || null,
          ...(message.toolCalls.length > 0 && {
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: "function" as const,
              function: { name: call.name, arguments: JSON.stringify(call.input) },
            })),
          }),
        });
        break;
      case "tool_result":
        // Chat completions has no error flag on tool messages; the prefix tells the model.
        out.push({
          role: "tool",
          tool_call_id: message.toolCallId,
          content: message.isError ? `Error: ${message.output}` : message.output,
        });
        break;
    }
  }
  return out;
}

function parseArguments(raw: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(raw || "{}");
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Fall through: the tool's input validation will tell the model what was wrong.
  }
  return { invalidArguments: raw };
}

export function createOpenAIProvider(options: OpenAIProviderOptions): ModelProvider {
  let client: OpenAI | undefined;
  return {
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const sdk = sdkClientOptions(options, "OPENAI");
      client ??= new OpenAI(sdk);
      const tools: ChatCompletionTool[] = request.tools.map((tool) => ({
        type: "function",
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      }));
      const completion = await client.chat.completions.create(
        {
          model: modelNameOf(request.model, "openai"),
          messages: toOpenAIMessages(request.system, request.messages),
          ...(tools.length > 0 && { tools }),
        },
        { signal: request.signal },
      );
      const choice = completion.choices[0];
      if (!choice) throw new Error("OpenAI response has no choices");
      const toolCalls = (choice.message.tool_calls ?? []).flatMap((call) =>
        call.type === "function"
          ? [{ id: call.id, name: call.function.name, input: parseArguments(call.function.arguments) }]
          : [],
      );
      return {
        text: choice.message.content ?? "",
        toolCalls,
        stopReason: choice.finish_reason ?? "unknown",
        usage: {
          inputTokens: completion.usage?.prompt_tokens ?? 0,
          outputTokens: completion.usage?.completion_tokens ?? 0,
          cachedTokens: completion.usage?.prompt_tokens_details?.cached_tokens ?? 0,
        },
      };
    },
  };
}
