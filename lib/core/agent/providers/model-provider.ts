/**
 * The neutral model port: the loop speaks only this, and each provider translates it to its wire
 * format. Messages are plain JSON so a transcript can be checkpointed and stored as is.
 */
import type { ToolDefinition } from "@/lib/core/agent/tool-types";

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/**
 * One transcript entry. `system_reminder` carries hook context and outcomes; providers send it as
 * a user-side message wrapped in <system-reminder> tags (the model reads it as guidance, not as the
 * user speaking), because a system prompt cannot appear mid-conversation for every provider.
 */
export type ChatMessage =
  | { role: "user"; text: string }
  | { role: "system_reminder"; text: string }
  | { role: "assistant"; text: string; toolCalls: ToolCall[] }
  | { role: "tool_result"; toolCallId: string; toolName: string; output: string; isError: boolean };

/**
 * Token counts of one call. `inputTokens` counts every prompt token, cached ones included;
 * `cachedTokens` is the part of it read from the provider's prompt cache (priced lower).
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

export interface ModelRequest {
  /** The agent's model string as configured ("scripted", "openai:gpt-4o", ...). */
  model: string;
  system?: string;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  signal?: AbortSignal;
}

export interface ModelResponse {
  text: string;
  toolCalls: ToolCall[];
  /** The provider's own stop reason ("end_turn", "tool_use", "stop", "tool_calls", ...). */
  stopReason: string;
  usage: TokenUsage;
}

export interface ModelProvider {
  complete(request: ModelRequest): Promise<ModelResponse>;
}

export function reminderText(text: string): string {
  return `<system-reminder>\n${text}\n</system-reminder>`;
}

/** The model name after the provider prefix: "openai:gpt-4o" → "gpt-4o". */
export function modelNameOf(model: string, prefix: string): string {
  return model.startsWith(`${prefix}:`) ? model.slice(prefix.length + 1) : model;
}
