/**
 * The agent loop's `transforms` port, implemented with the operator's code hooks (Standard Agents'
 * `defineHook` modules): which hooks run is the run's own `codeHooks` if it has one (prompt-level),
 * else the agent's (resolveCodeHookIds). Hooks run one at a time, in the listed order, each on a copy
 * of the previous one's result; a hook that throws, times out or returns a value of the wrong shape
 * is logged and recorded as a `code_hook.error` run event, and the data it was given is kept.
 */
import type { AgentWithId, LoopTransforms } from "@/lib/core/agent/loop-ports";
import type { ChatMessage, ToolCall as LoopToolCall } from "@/lib/core/agent/providers/model-provider";
import { chatMessageProblem, messageListProblem, toolResultProblem } from "@/lib/core/agent/transcript-shape";
import {
  resolveCodeHookIds,
  runEventHooks,
  runTransformHooks,
  type CodeHookContext,
  type CodeHookRegistry,
  type CodeHookType,
  type TransformData,
  type TransformHookType,
  type TransformSubject,
} from "@/lib/core/hooks/code-hooks";
import type { HookLogger } from "@/lib/core/hooks/ports";
import type { ToolResult } from "@/lib/core/agent/tool-types";

export interface CodeHookTransformOptions {
  /** The operator's code hooks (operatorCodeHooks()); undefined when code hooks are off. */
  registry: CodeHookRegistry | undefined;
  runId: string;
  /** The run's agent: its missing references are reported up front. */
  agent: AgentWithId;
  /** The run's own list (Standard Agents' prompt-level `hooks`): overrides the agent's; `[]` = none. */
  runCodeHooks?: readonly string[];
  /** The run's event sink: `code_hook.error` and `code_hook.missing` go here. */
  emit: (type: string, data: Record<string, unknown>) => void | Promise<void>;
  logger?: HookLogger;
  /** Report ids referenced but not installed (`code_hook.missing`); off on a resumed run, which already did. */
  reportMissing?: boolean;
  /** Per hook call (default 5 s, as runTransformHooks). */
  timeoutMs?: number;
}

const OFF_REASON = "code hooks are off (set HOOKPLANE_ALLOW_CODE_EXECUTION=1 and HOOKPLANE_HOOKS_DIR)";
const NOT_INSTALLED = "not installed in HOOKPLANE_HOOKS_DIR";

/**
 * The port for one run, or undefined when no hooks can run (code hooks off). Methods exist only for
 * the hook types the operator installed, so the loop copies nothing for the others.
 */
export async function createCodeHookTransforms(options: CodeHookTransformOptions): Promise<LoopTransforms | undefined> {
  const { registry, runId, emit } = options;
  const logger = options.logger;
  const idsFor = (agent: AgentWithId) => resolveCodeHookIds({ prompt: options.runCodeHooks, agent: agent.codeHooks });

  const reported = new Set<string>();
  const reportMissing = async (agent: AgentWithId) => {
    if (!options.reportMissing || reported.has(agent.name)) return;
    reported.add(agent.name);
    const missing = idsFor(agent).filter((id) => !registry?.get(id));
    if (missing.length === 0) return;
    const reason = registry ? NOT_INSTALLED : OFF_REASON;
    logger?.warn(`code hooks referenced by ${agent.name} will not run: ${reason}`, { runId, hookIds: missing });
    await emit("code_hook.missing", { agentName: agent.name, hookIds: missing, reason });
  };
  await reportMissing(options.agent);
  if (!registry) return undefined;

  const installed = new Set<CodeHookType>(registry.ids().map((id) => registry.get(id)!.type));
  const contextOf = (agent: AgentWithId): CodeHookContext =>
    Object.freeze({ runId, threadId: runId, agentId: agent.id, agentName: agent.name });

  const reportError = async (type: CodeHookType, hookId: string, agent: AgentWithId, message: string) => {
    await emit("code_hook.error", { hookId, hookType: type, agentName: agent.name, message });
  };

  /** The hooks of `type` the agent's scope references, in order, each on the previous result. */
  const chain = async <T extends TransformHookType>(
    type: T,
    agent: AgentWithId,
    data: TransformData<T>,
    subject: TransformSubject<T> | undefined,
    problem: (value: unknown) => string | undefined,
  ): Promise<TransformData<T>> => {
    await reportMissing(agent);
    let current = data;
    for (const id of idsFor(agent)) {
      if (registry.get(id)?.type !== type) continue;
      const copy = structuredClone(current);
      const result = await runTransformHooks(registry, type, [id], copy, contextOf(agent), structuredClone(subject), {
        ...(logger && { logger }),
        ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      });
      if (result.errors.length > 0) {
        for (const error of result.errors) await reportError(type, error.hookId, agent, error.message);
        continue;
      }
      // after_tool_call_*: null removes the result; no later hook sees it.
      if (result.data === null) return result.data;
      const bad = problem(result.data);
      if (bad !== undefined) {
        const message = `returned an invalid value: ${bad}; keeping the data it was given`;
        logger?.error(`code hook ${id} (${type}) ${message}`, { runId });
        await reportError(type, id, agent, message);
        continue;
      }
      current = result.data;
    }
    return current;
  };

  const asMessages = (messages: ChatMessage[]) => messages as unknown as TransformData<"filter_messages">;
  const toolCallOf = (call: LoopToolCall) => ({ id: call.id, name: call.name, input: call.input });
  const transforms: LoopTransforms = {};

  if (installed.has("filter_messages")) {
    transforms.filterMessages = async (messages, { agent }) =>
      (await chain("filter_messages", agent, asMessages(messages), undefined, messageListProblem)) as unknown as ChatMessage[];
  }
  if (installed.has("prefilter_llm_history")) {
    transforms.prefilterHistory = async (messages, { agent }) =>
      (await chain("prefilter_llm_history", agent, asMessages(messages), undefined, messageListProblem)) as unknown as ChatMessage[];
  }
  if (installed.has("before_create_message")) {
    transforms.beforeCreateMessage = async (message, { agent }) =>
      (await chain("before_create_message", agent, message as unknown as Record<string, unknown>, undefined, (value) =>
        chatMessageProblem(value) ?? ((value as ChatMessage).role === message.role ? undefined : `the role must stay ${message.role}`),
      )) as unknown as ChatMessage;
  }
  if (installed.has("after_tool_call_success") || installed.has("after_tool_call_failure")) {
    transforms.afterToolCall = async (result, call, ok, { agent }) =>
      (await chain(ok ? "after_tool_call_success" : "after_tool_call_failure", agent, { ...result }, toolCallOf(call), (value) =>
        value === null ? undefined : toolResultProblem(value),
      )) as unknown as ToolResult | null;
  }
  if (installed.has("before_store_tool_result")) {
    transforms.beforeStoreToolResult = async (result, call, { agent }) =>
      (await chain("before_store_tool_result", agent, { ...result }, toolCallOf(call), toolResultProblem)) as unknown as ToolResult;
  }
  if (installed.has("after_create_message")) {
    transforms.afterCreateMessage = async (message, { agent }) => {
      await reportMissing(agent);
      const { errors } = await runEventHooks(registry, "after_create_message", idsFor(agent).filter((id) => registry.get(id)), contextOf(agent), message as unknown as Record<string, unknown>, {
        ...(logger && { logger }),
        ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      });
      for (const error of errors) await reportError("after_create_message", error.hookId, agent, error.message);
    };
  }
  return transforms;
}
