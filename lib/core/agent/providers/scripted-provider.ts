/**
 * The `scripted` model (api.md): plays the agent's script, one turn per model call, then answers
 * its final text. The turn is derived from the transcript (the number of assistant messages so far),
 * not from a counter, so a run resumed from a checkpoint continues the script where it stopped.
 */
import type { ScriptTurn } from "@/lib/core/agent/agent-spec";
import type { ChatMessage, ModelProvider, ModelRequest, ModelResponse } from "./model-provider";

/** Deterministic stand-in for a tokenizer: about four characters per token. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

function messageChars(message: ChatMessage): number {
  switch (message.role) {
    case "assistant":
      return message.text.length + message.toolCalls.reduce((n, c) => n + c.name.length + JSON.stringify(c.input).length, 0);
    case "tool_result":
      return message.output.length;
    default:
      return message.text.length;
  }
}

/** A tool result after the last assistant turn was an error: a denial (hook or person) or a failure. */
function lastToolCallsFailed(messages: ChatMessage[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === "assistant") return false;
    if (m.role === "tool_result" && m.isError) return true;
  }
  return false;
}

/** `{{prompt}}` in a scripted text: the run's prompt, on one line and kept short. */
function withPrompt(text: string, prompt: string): string {
  if (!text.includes("{{prompt}}")) return text;
  const line = prompt.replace(/\s+/g, " ").trim();
  return text.replaceAll("{{prompt}}", line.length > 120 ? `${line.slice(0, 119)}…` : line);
}

export function createScriptedProvider(script: ScriptTurn[] = []): ModelProvider {
  // After the script, the model keeps answering the last text it had, with no tool calls, so the loop ends.
  const finalText = [...script].reverse().find((t) => t.text !== undefined)?.text ?? "";
  return {
    async complete(request: ModelRequest): Promise<ModelResponse> {
      request.signal?.throwIfAborted();
      let turnIndex = 0;
      for (const m of request.messages) if (m.role === "assistant") turnIndex++;
      const scripted: ScriptTurn = script[turnIndex] ?? { text: finalText };
      const turn = scripted.ifError && lastToolCallsFailed(request.messages) ? scripted.ifError : scripted;
      const prompt = request.messages.find((m) => m.role === "user")?.text ?? "";
      const text = withPrompt(turn.text ?? "", prompt);
      const toolCalls = (turn.toolCalls ?? []).map((call, i) => ({
        id: `call_${turnIndex + 1}_${i + 1}`,
        name: call.name,
        input: call.input ?? {},
      }));
      // Estimated only when the script gives no usage: the estimate reads the whole transcript.
      const inputChars = () => (request.system?.length ?? 0) + request.messages.reduce((n, m) => n + messageChars(m), 0);
      const outputChars = () => text.length + toolCalls.reduce((n, c) => n + c.name.length + JSON.stringify(c.input).length, 0);
      return {
        text,
        toolCalls,
        stopReason: toolCalls.length > 0 ? "tool_use" : "end_turn",
        usage: {
          inputTokens: turn.usage?.inputTokens ?? estimateTokens(inputChars()),
          outputTokens: turn.usage?.outputTokens ?? estimateTokens(outputChars()),
          cachedTokens: 0,
        },
      };
    },
  };
}
