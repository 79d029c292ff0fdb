/**
 * The operator's transforms of what an agent sees and stores (Standard Agents' transform hooks):
 * each runs on a copy; a throw, or a value of the wrong shape, is recorded and the original kept
 * (Standard Agents: a failing hook is logged and the original data is used). A LoopInterrupted
 * still stops the loop.
 */
import type { ToolResult } from "@/lib/core/agent/tool-types";
import type { FactName, FactPayload } from "@/lib/core/hooks/event-payloads";
import type { AgentWithId, LoopTransforms, TransformScope } from "./loop-ports";
import { LoopInterrupted } from "./loop-signals";
import type { ChatMessage, ToolCall } from "./providers/model-provider";
import { asChatMessage, asToolResult, chatMessageProblem, messageListProblem, toolResultProblem } from "./transcript-shape";

/** What the model reads for a tool result an after_tool_call transform removed (returned null). */
export const REMOVED_TOOL_RESULT = "(no result)";

/** Where a transform runs: named after the Standard Agents hook type it stands for. */
type TransformPoint =
  | "filter_messages"
  | "prefilter_llm_history"
  | "before_create_message"
  | "after_create_message"
  | "after_tool_call_success"
  | "after_tool_call_failure"
  | "before_store_tool_result";

type Fact = <T extends FactName>(type: T, data: FactPayload<T>) => Promise<unknown>;

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class MessageTransforms {
  /** Messages stored since the last checkpoint: after_create_message fires for each once it is saved. */
  private readonly created: { message: ChatMessage; scope: TransformScope }[] = [];

  constructor(
    private readonly transforms: LoopTransforms | undefined,
    private readonly fact: Fact,
  ) {}

  /** Whether a stored message still waits for after_create_message (the checkpoint must be durable). */
  get hasCreated(): boolean {
    return this.created.length > 0;
  }

  /**
   * The message as it is stored: user, assistant and system_reminder messages go through
   * before_create_message first; tool results already went through their own transforms.
   */
  async toStore(agent: AgentWithId, message: ChatMessage): Promise<ChatMessage> {
    const scope = { agent };
    const before = this.transforms?.beforeCreateMessage;
    const stored =
      message.role === "tool_result" || !before
        ? message
        : asChatMessage(
            await this.run("before_create_message", message, (copy) => before.call(this.transforms, copy, scope), (value) =>
              chatMessageProblem(value) ?? ((value as ChatMessage).role === message.role ? undefined : `the role must stay ${message.role}`),
            ),
          );
    if (this.transforms?.afterCreateMessage) this.created.push({ message: stored, scope });
    return stored;
  }

  /** Once the checkpoint holds them: after_create_message for each message stored since the last one. */
  async afterSaved(): Promise<void> {
    for (const { message, scope } of this.created.splice(0)) {
      try {
        await this.transforms!.afterCreateMessage!(structuredClone(message), scope);
      } catch (err) {
        if (err instanceof LoopInterrupted) throw err;
        await this.fact("loop.transform_error", { point: "after_create_message", message: errorMessage(err) });
      }
    }
  }

  /** The transcript as the model gets it: filter_messages, then prefilter_llm_history; never stored. */
  async toSend(agent: AgentWithId, messages: ChatMessage[]): Promise<ChatMessage[]> {
    const filter = this.transforms?.filterMessages;
    const prefilter = this.transforms?.prefilterHistory;
    if (!filter && !prefilter) return messages;
    const scope = { agent };
    const filtered = await this.run("filter_messages", messages, filter && ((copy) => filter.call(this.transforms, copy, scope)), messageListProblem);
    const sent = await this.run("prefilter_llm_history", filtered, prefilter && ((copy) => prefilter.call(this.transforms, copy, scope)), messageListProblem);
    return sent === messages ? messages : sent.map(asChatMessage);
  }

  /**
   * A tool's answer as it is recorded: after_tool_call_success or _failure (null removes the result),
   * then before_store_tool_result. Runs once per call: the checkpoint keeps what it returned.
   */
  async toolResult(agent: AgentWithId, call: ToolCall, raw: ToolResult): Promise<ToolResult> {
    const after = this.transforms?.afterToolCall;
    const beforeStore = this.transforms?.beforeStoreToolResult;
    if (!after && !beforeStore) return raw;
    const scope = { agent };
    const ok = !raw.isError;
    const afterCall = await this.run<ToolResult | null>(
      ok ? "after_tool_call_success" : "after_tool_call_failure",
      raw,
      after && ((copy) => after.call(this.transforms, copy!, structuredClone(call), ok, scope)),
      (value) => (value === null ? undefined : toolResultProblem(value)),
    );
    if (afterCall === null) {
      // Standard Agents drops the result; a tool call must keep one for the providers, so it is empty.
      await this.fact("loop.tool_result_removed", { toolCallId: call.id, toolName: call.name });
      return { output: REMOVED_TOOL_RESULT, isError: false };
    }
    const stored = await this.run(
      "before_store_tool_result",
      afterCall,
      beforeStore && ((copy) => beforeStore.call(this.transforms, copy, structuredClone(call), scope)),
      toolResultProblem,
    );
    return asToolResult(stored);
  }

  /** Runs one transform on a copy of `original`; `original` when it fails or `problem` refuses it. */
  private async run<T>(
    point: TransformPoint,
    original: T,
    transform: ((copy: T) => Promise<unknown>) | undefined,
    problem: (value: unknown) => string | undefined,
  ): Promise<T> {
    if (!transform) return original;
    let value: unknown;
    try {
      value = await transform(structuredClone(original));
    } catch (err) {
      if (err instanceof LoopInterrupted) throw err;
      await this.fact("loop.transform_error", { point, message: errorMessage(err) });
      return original;
    }
    const bad = problem(value);
    if (bad !== undefined) {
      await this.fact("loop.transform_error", { point, message: `returned an invalid value: ${bad}` });
      return original;
    }
    return value as T;
  }
}
