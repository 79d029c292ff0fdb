/**
 * Shape checks for what a transform (an operator's code hook) hands back to the loop: a message,
 * a message list, a tool result. A value that fails is refused and the data the transform was
 * given is kept, so a buggy hook cannot break the transcript, a checkpoint or a provider call.
 */
import type { ToolResult } from "@/lib/core/agent/tool-types";
import type { ChatMessage } from "./providers/model-provider";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why `value` is not a ChatMessage, or undefined when it is one. */
export function chatMessageProblem(value: unknown): string | undefined {
  if (!isObject(value)) return "a message must be an object";
  switch (value.role) {
    case "user":
    case "system_reminder":
      return typeof value.text === "string" ? undefined : `a ${value.role} message needs a string text`;
    case "assistant": {
      if (typeof value.text !== "string") return "an assistant message needs a string text";
      if (!Array.isArray(value.toolCalls)) return "an assistant message needs a toolCalls array";
      const ids = new Set<string>();
      for (const call of value.toolCalls as unknown[]) {
        if (!isObject(call) || typeof call.id !== "string" || call.id === "" || typeof call.name !== "string" || call.name === "" || !isObject(call.input)) {
          return "each tool call needs an id, a name and an input object";
        }
        if (ids.has(call.id)) return `tool call id ${call.id} appears twice`;
        ids.add(call.id);
      }
      return undefined;
    }
    case "tool_result":
      return typeof value.toolCallId === "string" && typeof value.toolName === "string" && typeof value.output === "string" && typeof value.isError === "boolean"
        ? undefined
        : "a tool_result message needs toolCallId, toolName, output (string) and isError (boolean)";
    default:
      return `unknown message role ${JSON.stringify(value.role)}`;
  }
}

/**
 * Why `value` is not a message list a provider accepts, or undefined. Beyond each message's shape,
 * tool calls and their results must stay together (Standard Agents' caution for history filters):
 * every result answers a call of the assistant message before it, and every call is answered
 * before the next assistant message.
 */
export function messageListProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return "a message list must be an array";
  let open = new Set<string>();
  for (const [i, message] of (value as unknown[]).entries()) {
    const problem = chatMessageProblem(message);
    if (problem) return `message ${i}: ${problem}`;
    const m = message as ChatMessage;
    if (m.role === "assistant") {
      if (open.size > 0) return `message ${i}: tool call ${[...open][0]} has no result before the next assistant message`;
      open = new Set(m.toolCalls.map((c) => c.id));
    } else if (m.role === "tool_result") {
      if (!open.delete(m.toolCallId)) return `message ${i}: tool result ${m.toolCallId} answers no open tool call`;
    }
  }
  if (open.size > 0) return `tool call ${[...open][0]} has no result`;
  return undefined;
}

/** Why `value` is not a ToolResult, or undefined. */
export function toolResultProblem(value: unknown): string | undefined {
  if (!isObject(value)) return "a tool result must be an object";
  if (typeof value.output !== "string") return "a tool result needs a string output";
  if (typeof value.isError !== "boolean") return "a tool result needs a boolean isError";
  return undefined;
}

/** Only the fields a ToolResult has, so a hook's extra keys are not stored in the checkpoint. */
export function asToolResult(value: ToolResult): ToolResult {
  return { output: value.output, isError: value.isError };
}

/** Only the fields of the message's role (a hook's extra keys are not stored or sent). */
export function asChatMessage(m: ChatMessage): ChatMessage {
  switch (m.role) {
    case "user":
    case "system_reminder":
      return { role: m.role, text: m.text };
    case "assistant":
      return { role: "assistant", text: m.text, toolCalls: m.toolCalls.map((c) => ({ id: c.id, name: c.name, input: c.input })) };
    case "tool_result":
      return { role: "tool_result", toolCallId: m.toolCallId, toolName: m.toolName, output: m.output, isError: m.isError };
  }
}
