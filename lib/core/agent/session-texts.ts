/**
 * The texts a session writes for the model and the ledger: a trimmed stack, the last answer, a
 * dispatch's hook texts, a denied call's output.
 */
import type { DispatchResult } from "./loop-ports";
import type { ChatMessage } from "./providers/model-provider";

/** What the model (and tool.post hooks) read for a side-effecting call a crash or shutdown cut short. */
export const INTERRUPTED_OUTPUT = "interrupted: the previous attempt may or may not have completed";

const STACK_LINES = 12;

export function trimmedStack(err: unknown): string | undefined {
  return err instanceof Error ? err.stack?.split("\n").slice(0, STACK_LINES).join("\n") : undefined;
}

export function lastAssistant(messages: ChatMessage[]): Extract<ChatMessage, { role: "assistant" }> | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === "assistant") return m;
  }
  return undefined;
}

/**
 * The texts one dispatch wants the model to read. The hook runtime's `reminders` already repeat
 * its injected `context`, so each distinct text goes in once.
 */
export function hookTexts(result: DispatchResult): string[] {
  return [...new Set([...(result.context ?? []), ...(result.reminders ?? [])])].filter((t) => t.trim() !== "");
}

export function deniedOutput(reason: string): string {
  return `Denied: ${reason}`;
}
