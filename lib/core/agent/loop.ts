/**
 * The agent loop: prompt → model → tools → model ... with every lifecycle event of hook-model.md
 * fired around it, limits enforced, and a checkpoint after each completed step.
 *
 * Failure model:
 * - provider and tool errors are the run's failures: `error` event, then session.end `failed`;
 * - cancel and timeout end the run as `cancelled` / `timeout` (no `error` event);
 * - errors of the recording ports (emit, dispatch, checkpoint) are the worker's failures: they
 *   propagate without session.end, and a rerun with the same checkpoint resumes the run.
 *
 * Waiting is a state: when a hook waits for a person (dispatch answers `suspend`), the loop saves
 * its checkpoint and returns `suspended`; run again with that checkpoint, it continues the waiting
 * dispatch where it stopped (the event is not recorded twice). A cancel or timeout that finds the
 * run waiting abandons the wait (the hook's ledger row says so) and ends the run.
 */
import type { EventPayload, FactName, FactPayload } from "@/lib/core/hooks/event-payloads";
import type { EventName, Outcome } from "@/lib/core/hooks/events";
import type { ToolDefinition, ToolResult } from "@/lib/core/agent/tool-types";
import type {
  AgentSessionOptions,
  AgentWithId,
  DispatchResult,
  SessionResult,
  SessionTotals,
  TransformScope,
} from "./loop-ports";
import { initialLoopState, newStage, type LoopState, type StageState } from "./loop-state";
import type { ChatMessage, ModelProvider, ToolCall } from "./providers/model-provider";
import { asChatMessage, asToolResult, chatMessageProblem, messageListProblem, toolResultProblem } from "./transcript-shape";

/**
 * Stops the loop without ending the run: the worker is shutting down or lost its lease, and the
 * run will be resumed from its checkpoint elsewhere. Abort the signal with it as the reason (or
 * throw it from a port); no session.end fires, and an interrupted tool call runs again on resume.
 */
export class LoopInterrupted extends Error {
  /**
   * A graceful stop: the step in flight (a tool call) may finish and be recorded; only when
   * `hardStop` aborts (the grace period ran out) is it cut short. Without it, at once.
   */
  readonly hardStop?: AbortSignal;

  constructor(message = "the agent loop was interrupted; resume it from its checkpoint", options: { hardStop?: AbortSignal } = {}) {
    super(message);
    this.name = "LoopInterrupted";
    this.hardStop = options.hardStop;
  }
}

/** Wraps an error of the provider or a tool, so it is told apart from a recording port's error. */
class StepFailure extends Error {
  constructor(readonly original: unknown) {
    super(original instanceof Error ? original.message : String(original));
    this.name = "StepFailure";
  }
}

/** Unwinds the loop to its top when a dispatch suspended; never leaves runAgentSession. */
class Suspension {
  constructor(readonly waitingOn: { event: EventName; approvalId: string; hookId: string }) {}
}

async function step<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw new StepFailure(err);
  }
}

const STACK_LINES = 12;

function trimmedStack(err: unknown): string | undefined {
  return err instanceof Error ? err.stack?.split("\n").slice(0, STACK_LINES).join("\n") : undefined;
}

function lastAssistant(messages: ChatMessage[]): Extract<ChatMessage, { role: "assistant" }> | undefined {
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
function hookTexts(result: DispatchResult): string[] {
  return [...new Set([...(result.context ?? []), ...(result.reminders ?? [])])].filter((t) => t.trim() !== "");
}

function deniedOutput(reason: string): string {
  return `Denied: ${reason}`;
}

/** What the model (and tool.post hooks) read for a side-effecting call a crash or shutdown cut short. */
export const INTERRUPTED_OUTPUT = "interrupted: the previous attempt may or may not have completed";

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

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs one agent (or a flow of agents, when `agent.flow` is set) to an outcome. */
export async function runAgentSession(opts: AgentSessionOptions): Promise<SessionResult> {
  const now = opts.now ?? Date.now;
  const top = opts.agent;
  const flowNames = top.flow && top.flow.length > 0 ? top.flow : undefined;
  const isFlow = flowNames !== undefined;
  if (!opts.provider && !opts.providerFor) throw new TypeError("runAgentSession needs provider or providerFor");

  const loaded = await opts.checkpoint?.load();
  const state: LoopState =
    loaded ?? initialLoopState(isFlow ? flowNames[0] : top.name, opts.prompt, isFlow);
  const startedAt = now() - state.elapsedMs;

  // Cancel (the caller's signal) and the wall-clock timeout both abort in-flight provider and tool calls.
  const inflight = new AbortController();
  let timedOut = false;
  const onCancel = () => {
    const reason = opts.signal?.reason;
    if (reason instanceof LoopInterrupted && reason.hardStop && !reason.hardStop.aborted) {
      // A graceful shutdown: the step in flight finishes unless the grace period runs out first.
      reason.hardStop.addEventListener("abort", () => inflight.abort(reason), { once: true });
      return;
    }
    inflight.abort(reason);
  };
  opts.signal?.addEventListener("abort", onCancel, { once: true });
  if (opts.signal?.aborted) inflight.abort(opts.signal.reason);
  const timer = setTimeout(
    () => {
      timedOut = true;
      inflight.abort(new Error("timeout"));
    },
    Math.max(0, top.timeoutMs - state.elapsedMs),
  );

  const emit = async (type: string, data: Record<string, unknown>): Promise<number | undefined> => {
    return (await opts.emit(type, data)) ?? undefined;
  };
  /** The loop's own facts, typed by the catalog (lib/core/hooks/event-payloads.ts). */
  const fact = <T extends FactName>(type: T, data: FactPayload<T>) => emit(type, data);

  const transforms = opts.transforms;

  /**
   * Runs one transform on a copy of `original`. A throw, or a value `problem` refuses, is recorded
   * and `original` kept (Standard Agents: a failing hook is logged and the original data is used).
   * A LoopInterrupted still stops the loop.
   */
  const transformed = async <T>(
    point: TransformPoint,
    original: T,
    transform: ((copy: T) => Promise<unknown>) | undefined,
    problem: (value: unknown) => string | undefined,
  ): Promise<T> => {
    if (!transform) return original;
    let value: unknown;
    try {
      value = await transform(structuredClone(original));
    } catch (err) {
      if (err instanceof LoopInterrupted) throw err;
      await fact("loop.transform_error", { point, message: errorMessage(err) });
      return original;
    }
    const bad = problem(value);
    if (bad !== undefined) {
      await fact("loop.transform_error", { point, message: `returned an invalid value: ${bad}` });
      return original;
    }
    return value as T;
  };

  /** Messages stored since the last checkpoint: after_create_message fires for each once it is saved. */
  const created: { message: ChatMessage; scope: TransformScope }[] = [];

  const save = async (durable = false) => {
    state.elapsedMs = now() - startedAt;
    // Messages waiting for after_create_message are reported only once they are stored for good.
    await opts.checkpoint?.save(state, { durable: durable || created.length > 0 });
    for (const { message, scope } of created.splice(0)) {
      try {
        await transforms!.afterCreateMessage!(structuredClone(message), scope);
      } catch (err) {
        if (err instanceof LoopInterrupted) throw err;
        await fact("loop.transform_error", { point: "after_create_message", message: errorMessage(err) });
      }
    }
  };

  /**
   * Appends a message to the agent's transcript: user, assistant and system_reminder messages go
   * through before_create_message first (its result is what is stored); tool results already went
   * through their own transforms.
   */
  const addMessage = async (stage: StageState, agent: AgentWithId, message: ChatMessage): Promise<ChatMessage> => {
    const scope = { agent };
    const before = transforms?.beforeCreateMessage;
    const stored =
      message.role === "tool_result" || !before
        ? message
        : asChatMessage(
            await transformed("before_create_message", message, (copy) => before.call(transforms, copy, scope), (value) =>
              chatMessageProblem(value) ?? ((value as ChatMessage).role === message.role ? undefined : `the role must stay ${message.role}`),
            ),
          );
    stage.messages.push(stored);
    if (transforms?.afterCreateMessage) created.push({ message: stored, scope });
    return stored;
  };

  /** The transcript as the model gets it: filter_messages, then prefilter_llm_history; never stored. */
  const messagesToSend = async (agent: AgentWithId, messages: ChatMessage[]): Promise<ChatMessage[]> => {
    const filter = transforms?.filterMessages;
    const prefilter = transforms?.prefilterHistory;
    if (!filter && !prefilter) return messages;
    const scope = { agent };
    const filtered = await transformed("filter_messages", messages, filter && ((copy) => filter.call(transforms, copy, scope)), messageListProblem);
    const sent = await transformed("prefilter_llm_history", filtered, prefilter && ((copy) => prefilter.call(transforms, copy, scope)), messageListProblem);
    return sent === messages ? messages : sent.map(asChatMessage);
  };

  /**
   * A tool's answer as it is recorded: after_tool_call_success or _failure (null removes the result),
   * then before_store_tool_result. Runs once per call: the checkpoint keeps what it returned.
   */
  const resultToStore = async (agent: AgentWithId, call: ToolCall, raw: ToolResult): Promise<ToolResult> => {
    const after = transforms?.afterToolCall;
    const beforeStore = transforms?.beforeStoreToolResult;
    if (!after && !beforeStore) return raw;
    const scope = { agent };
    const ok = !raw.isError;
    const afterCall = await transformed<ToolResult | null>(
      ok ? "after_tool_call_success" : "after_tool_call_failure",
      raw,
      after && ((copy) => after.call(transforms, copy!, structuredClone(call), ok, scope)),
      (value) => (value === null ? undefined : toolResultProblem(value)),
    );
    if (afterCall === null) {
      // Standard Agents drops the result; a tool call must keep one for the providers, so it is empty.
      await fact("loop.tool_result_removed", { toolCallId: call.id, toolName: call.name });
      return { output: REMOVED_TOOL_RESULT, isError: false };
    }
    const stored = await transformed(
      "before_store_tool_result",
      afterCall,
      beforeStore && ((copy) => beforeStore.call(transforms, copy, structuredClone(call), scope)),
      toolResultProblem,
    );
    return asToolResult(stored);
  };

  /** What tells one firing of an event from another, so a resumed loop finds the one that waits. */
  const keyOf = (type: EventName, data: Record<string, unknown>) =>
    typeof data.toolCallId === "string" ? `${type}:${data.toolCallId}` : `${type}:${state.stage.index}:${state.totals.turns}`;

  /**
   * One lifecycle event: recorded once, then its hooks run. The dispatch that waited for a person
   * is continued, not repeated, when the resumed loop gets back to it.
   */
  const fire = async <T extends EventName>(type: T, data: EventPayload<T>): Promise<DispatchResult> => {
    const key = keyOf(type, data);
    const waiting = state.suspended;
    let result: DispatchResult;
    let seq: number | undefined;
    if (waiting && waiting.event === type && waiting.key === key) {
      seq = waiting.seq;
      result = await opts.dispatch({ type, data, seq }, { point: waiting.point });
      state.suspended = undefined;
    } else if (state.firing && state.firing.event === type && state.firing.key === key) {
      // Recorded before a crash, its hooks cut short: they run again, the event is not re-recorded.
      seq = state.firing.seq;
      result = await opts.dispatch({ type, data, seq });
    } else {
      seq = await emit(type, data);
      // The event and the note that it was recorded are stored together (one batch).
      state.firing = { event: type, key, ...(seq !== undefined && { seq }) };
      await save();
      result = await opts.dispatch({ type, data, seq });
    }
    state.firing = undefined;
    if (result.verdict === "suspend" && result.suspended && result.suspended.abandoned === undefined) {
      const { abandoned: _, ...point } = result.suspended;
      state.suspended = { event: type, key, data, ...(seq !== undefined && { seq }), point };
      await save();
      throw new Suspension({ event: type, approvalId: point.approvalId, hookId: point.hookId });
    }
    return result;
  };

  /** The run ends while a hook waits for a person: that hook's row says the wait was abandoned. */
  const abandonWait = async (why: string) => {
    const waiting = state.suspended;
    if (!waiting) return;
    await opts.dispatch({ type: waiting.event, data: waiting.data, seq: waiting.seq }, { point: waiting.point, abandon: why });
    state.suspended = undefined;
    await save();
  };

  const queueReminders = (result: DispatchResult) => {
    state.pendingReminders.push(...hookTexts(result));
  };

  const throwIfInterrupted = () => {
    if (opts.signal?.aborted && opts.signal.reason instanceof LoopInterrupted) throw opts.signal.reason;
  };

  const interruption = (): { outcome: Outcome; reason: string } | undefined => {
    throwIfInterrupted();
    if (opts.signal?.aborted) return { outcome: "cancelled", reason: "cancelled" };
    if (timedOut || now() - startedAt >= top.timeoutMs) {
      return { outcome: "timeout", reason: `timed out after ${top.timeoutMs} ms` };
    }
    return undefined;
  };

  const end = (outcome: Outcome, reason?: string, response?: string) => {
    state.ending = {
      outcome,
      ...(reason !== undefined && { reason }),
      response: response ?? (lastAssistant(state.stage.messages)?.text || undefined),
    };
  };

  const readMetadata = async (): Promise<Record<string, unknown> | undefined> => {
    if (!opts.readMetadata) return undefined;
    try {
      return await opts.readMetadata();
    } catch {
      // A missing or broken metadata file must not fail the run; hooks see no metadata.
      return undefined;
    }
  };

  const stageAgents = new Map<number, AgentWithId>();
  const agentOfStage = async (stage: StageState): Promise<AgentWithId> => {
    if (!isFlow) return top;
    const cached = stageAgents.get(stage.index);
    if (cached) return cached;
    const agent = await step(async () => {
      if (!opts.resolveAgent) throw new Error(`agent ${top.name} is a flow, but no resolveAgent was given`);
      const found = await opts.resolveAgent(stage.agentName);
      if (!found) throw new Error(`flow ${top.name}: unknown agent "${stage.agentName}"`);
      if (found.flow && found.flow.length > 0) throw new Error(`flow ${top.name}: nested flow "${found.name}" is not supported`);
      return found;
    });
    stageAgents.set(stage.index, agent);
    return agent;
  };

  const providerOf = (agent: AgentWithId): ModelProvider => (opts.providerFor ?? (() => opts.provider!))(agent);

  const offeredTools = (agent: AgentWithId): ToolDefinition[] => {
    const all = opts.tools.list();
    return agent.tools.includes("*") ? all : all.filter((t) => agent.tools.includes(t.name));
  };

  /** Flushes pending reminders into the transcript, so the model sees them on this call. */
  const flushReminders = async (stage: StageState, agent: AgentWithId, texts: string[], when: "pending" | "model.pre") => {
    if (texts.length === 0) return;
    for (const text of texts) await addMessage(stage, agent, { role: "system_reminder", text });
    await fact("loop.reminders", { texts, source: when });
  };

  /** Works the tool calls of the last assistant message; each completed step is checkpointed. */
  const runToolCalls = async (agent: AgentWithId, stage: StageState, calls: ToolCall[]): Promise<boolean> => {
    const offered = new Set(offeredTools(agent).map((t) => t.name));
    for (const call of calls) {
      const record = (stage.toolCalls[call.id] ??= { toolName: call.name });
      if (record.verdict === "denied" || record.postFired) continue;
      const stop = interruption();
      if (stop) {
        end(stop.outcome, stop.reason);
        return false;
      }
      if (!record.verdict) {
        if (!offered.has(call.name)) {
          record.verdict = "denied";
          record.reason = `tool "${call.name}" is not available to agent ${agent.name}`;
          await fact("loop.tool_denied", { toolCallId: call.id, toolName: call.name, reason: record.reason, by: "agent" });
          await save();
          continue;
        }
        const pre = await fire("tool.pre", { toolName: call.name, toolInput: call.input, toolCallId: call.id });
        queueReminders(pre);
        if (pre.verdict === "block") {
          record.verdict = "denied";
          record.reason = pre.reason ?? "blocked by a hook";
          await fact("loop.tool_denied", { toolCallId: call.id, toolName: call.name, reason: record.reason, by: "hook" });
        } else record.verdict = "allowed";
        await save();
        if (record.verdict === "denied") continue;
      }
      if (!record.result && record.startedAt !== undefined && !opts.tools.retrySafe(call.name, call.input)) {
        // It started before a crash or shutdown and left no result: it may have done its work.
        // Running it again could do it twice; the model and tool.post hooks decide what comes next.
        record.result = { output: INTERRUPTED_OUTPUT, isError: true };
        record.durationMs = 0;
        await fact("loop.tool_interrupted", { toolCallId: call.id, toolName: call.name, retried: false });
        await save(true);
      }
      if (!record.result) {
        if (record.startedAt !== undefined) await fact("loop.tool_interrupted", { toolCallId: call.id, toolName: call.name, retried: true });
        // The intent is stored before the effect, the result right after it.
        record.startedAt = now();
        await save(true);
        const result = await step(() => opts.tools.call(call.name, call.input, inflight.signal));
        // A tool cut short by a shutdown did not finish: its intent stays without a result, and the
        // resumed run reports it as interrupted (or runs it again if it only reads). One that
        // finished within a graceful shutdown's grace period is recorded before the loop stops.
        if (inflight.signal.aborted) throwIfInterrupted();
        record.durationMs = now() - record.startedAt;
        record.result = await resultToStore(agent, call, result);
        await save(true);
        throwIfInterrupted();
      }
      const post = await fire("tool.post", {
        toolName: call.name,
        toolInput: call.input,
        toolCallId: call.id,
        output: record.result.output,
        isError: record.result.isError,
        durationMs: record.durationMs ?? 0,
      });
      queueReminders(post);
      record.postFired = true;
      await save();
    }
    // Results go in only once every call is settled: OpenAI wants them right after the assistant turn.
    for (const call of calls) {
      const record = stage.toolCalls[call.id];
      const denied = record.verdict === "denied";
      await addMessage(stage, agent, {
        role: "tool_result",
        toolCallId: call.id,
        toolName: call.name,
        output: denied ? deniedOutput(record.reason ?? "denied") : record.result!.output,
        isError: denied || record.result!.isError,
      });
    }
    const metadata = await readMetadata();
    if (metadata !== undefined && JSON.stringify(metadata) !== JSON.stringify(state.lastMetadata)) {
      state.lastMetadata = metadata;
      await fact("loop.metadata", { metadata });
    }
    return true;
  };

  /** A turn.end or agent.stop block: the reason goes to the agent as the next user message. */
  const keepWorking = async (stage: StageState, agent: AgentWithId, reason: string | undefined) => {
    await addMessage(stage, agent, { role: "user", text: reason?.trim() || "A hook asked you to keep working." });
  };

  /** The turn loop of one agent; returns its answer, or undefined when the run ends on a limit. */
  const runTurns = async (agent: AgentWithId, stage: StageState): Promise<string | undefined> => {
    const provider = providerOf(agent);
    for (;;) {
      if (stage.phase === "model") {
        const stop = interruption();
        if (stop) return void end(stop.outcome, stop.reason);
        if (stage.turns >= agent.maxTurns) return void end("max_turns", `reached maxTurns (${agent.maxTurns})`);

        await flushReminders(stage, agent, state.pendingReminders.splice(0), "pending");
        const pre = await fire("model.pre", { turn: state.totals.turns + 1, messageCount: stage.messages.length });
        await flushReminders(stage, agent, hookTexts(pre), "model.pre");
        const messages = await messagesToSend(agent, stage.messages);

        const response = await step(() =>
          provider.complete({
            model: agent.model,
            ...(agent.instructions && { system: agent.instructions }),
            messages,
            tools: offeredTools(agent),
            signal: inflight.signal,
          }),
        );
        throwIfInterrupted();
        const costUsd = await step(() => opts.costOf(agent.model, response.usage));
        const answer = await addMessage(stage, agent, { role: "assistant", text: response.text, toolCalls: response.toolCalls });
        if (answer.role !== "assistant") throw new Error("unreachable: the assistant message changed role");
        stage.turns++;
        state.totals.turns++;
        state.totals.inputTokens += response.usage.inputTokens;
        state.totals.outputTokens += response.usage.outputTokens;
        state.totals.cachedTokens += response.usage.cachedTokens;
        state.totals.costUsd += costUsd;
        stage.pendingModelPost = {
          model: agent.model,
          stopReason: response.stopReason,
          inputTokens: response.usage.inputTokens,
          outputTokens: response.usage.outputTokens,
          cachedTokens: response.usage.cachedTokens,
          costUsd,
          toolCallCount: answer.toolCalls.length,
          text: answer.text,
        };
        stage.phase = "model_post";
        await save();
      }

      if (stage.phase === "model_post") {
        if (!stage.pendingModelPost) throw new Error("checkpoint in model_post without the response's model.post data");
        const post = await fire("model.post", stage.pendingModelPost);
        queueReminders(post);
        stage.pendingModelPost = undefined;
        const answer = lastAssistant(stage.messages)!;
        if (top.budgetUsd !== undefined && state.totals.costUsd > top.budgetUsd) {
          end("budget", `cost $${state.totals.costUsd.toFixed(6)} exceeded the budget of $${top.budgetUsd}`);
          await save();
          return undefined;
        }
        stage.phase = answer.toolCalls.length === 0 ? "turn_end" : "tools";
        await save();
      }

      if (stage.phase === "turn_end") {
        const answer = lastAssistant(stage.messages)!;
        const turnEnd = await fire("turn.end", { stopHookActive: stage.stopHookActive === true, response: answer.text });
        queueReminders(turnEnd);
        stage.phase = "model";
        if (turnEnd.verdict === "block") {
          // Claude Code's Stop: a block keeps the agent working, its reason is the next prompt.
          await keepWorking(stage, agent, turnEnd.reason);
          stage.stopHookActive = true;
          await save();
          continue;
        }
        await save();
        return answer.text;
      }

      if (stage.phase === "tools") {
        const calls = lastAssistant(stage.messages)!.toolCalls;
        if (!(await runToolCalls(agent, stage, calls))) return undefined;
        stage.phase = "model";
        // The results are in the transcript now; the checkpoint keeps only the turn in progress.
        stage.toolCalls = {};
        await save();
      }
    }
  };

  const runUntilOutcome = async () => {
    if (!state.sessionStartFired) {
      const start = await fire("session.start", { ...opts.vars, prompt: opts.prompt });
      state.sessionStartFired = true;
      if (start.verdict === "block" || start.verdict === "skip") {
        end("skipped", start.reason ?? `session.start hook answered ${start.verdict}`);
        await save();
        return;
      }
      queueReminders(start);
      if (opts.prependSessionStartOutput && start.output?.trim()) {
        state.stage.prompt = `${start.output.trim()}\n\n${state.stage.prompt}`;
      }
      await save();
    }

    while (!state.ending) {
      const stage = state.stage;
      const agent = await agentOfStage(stage);
      if (!stage.started) {
        const start = await fire("agent.start", { agentName: agent.name });
        if (start.verdict === "block") {
          end("skipped", start.reason ?? `agent.start of ${agent.name} was blocked`);
          await save();
          return;
        }
        queueReminders(start);
        stage.started = true;
        await save();
      }
      if (!stage.promptSubmitted) {
        const submit = await fire("user.prompt.submit", { prompt: stage.prompt });
        if (submit.verdict === "block") {
          end("skipped", submit.reason ?? "the prompt was blocked");
          await save();
          return;
        }
        queueReminders(submit);
        await addMessage(stage, agent, { role: "user", text: stage.prompt });
        stage.promptSubmitted = true;
        await save();
      }

      const answer = await runTurns(agent, stage);
      if (answer === undefined) return;

      if (isFlow) {
        const stop = await fire("agent.stop", { agentName: agent.name });
        queueReminders(stop);
        if (stop.verdict === "block") {
          // Sent back to work (maxTurns still bounds it); the stage stays started and unstopped.
          await keepWorking(stage, agent, stop.reason);
          await save();
          continue;
        }
        stage.stopped = true;
      }
      if (!isFlow || stage.index === flowNames.length - 1) {
        end("completed", undefined, answer);
        await save();
        return;
      }
      state.completedStages.push({ agentName: stage.agentName, response: answer, messages: stage.messages });
      state.stage = newStage(stage.index + 1, flowNames[stage.index + 1], answer, false);
      await save();
    }
  };

  /** A flow agent that started but did not finish still gets its agent.stop, before session.end. */
  const stopStartedFlowAgent = async () => {
    if (!isFlow || !state.stage.started || state.stage.stopped) return;
    await fire("agent.stop", { agentName: state.stage.agentName });
    state.stage.stopped = true;
    await save();
  };

  const totals = (): SessionTotals => ({
    inputTokens: state.totals.inputTokens,
    outputTokens: state.totals.outputTokens,
    cachedTokens: state.totals.cachedTokens,
    costUsd: state.totals.costUsd,
    durationMs: state.elapsedMs,
    turns: state.totals.turns,
  });

  const result = (): SessionResult => {
    const ending = state.ending!;
    return {
      status: "ended",
      outcome: ending.outcome,
      ...(ending.reason !== undefined && { reason: ending.reason }),
      ...(ending.response !== undefined && { response: ending.response }),
      totals: totals(),
      messages: state.stage.messages,
    };
  };

  try {
    if (state.ended) return result();
    if (loaded) {
      await fact("loop.resumed", { stage: state.stage.index, phase: state.stage.phase, turn: state.totals.turns });
    }
    // A cancel or timeout that came while the run waited for a person ends it here.
    if (state.suspended && !state.ending) {
      const stop = interruption();
      if (stop) {
        await abandonWait(stop.reason);
        end(stop.outcome, stop.reason);
        await save();
      }
    }

    if (!state.ending) {
      try {
        await runUntilOutcome();
      } catch (err) {
        if (err instanceof Suspension) {
          const stop = interruption();
          if (!stop) return { status: "suspended", waitingOn: err.waitingOn, totals: totals(), messages: state.stage.messages };
          await abandonWait(stop.reason);
          end(stop.outcome, stop.reason);
          await save();
        } else {
          if (!(err instanceof StepFailure)) throw err;
          if (err.original instanceof LoopInterrupted) throw err.original;
          const stop = interruption();
          if (stop) end(stop.outcome, stop.reason);
          else {
            // hook-model.md: `error` comes just before session.end, so the failed agent stops first.
            await stopStartedFlowAgent();
            await fire("error", { message: err.message, stack: trimmedStack(err.original) });
            end("failed", err.message);
          }
          await save();
        }
      }
    }

    // Ended by a limit or a cancel found between steps while a hook still waited for a person.
    if (state.suspended) await abandonWait(state.ending!.reason ?? state.ending!.outcome);
    await stopStartedFlowAgent();

    const ending = state.ending!;
    const durationMs = now() - startedAt;
    const metadata = await readMetadata();
    await fire("session.end", {
      outcome: ending.outcome,
      reason: ending.reason,
      response: ending.response,
      inputTokens: state.totals.inputTokens,
      outputTokens: state.totals.outputTokens,
      costUsd: state.totals.costUsd,
      durationMs,
      metadata,
    });
    state.ended = true;
    await save();
    state.elapsedMs = durationMs;
    return result();
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onCancel);
  }
}

/** A multi-agent flow (AgenTopology): `agent.flow` names run in sequence, each answer the next prompt. */
export async function runFlow(
  opts: AgentSessionOptions & { resolveAgent: NonNullable<AgentSessionOptions["resolveAgent"]> },
): Promise<SessionResult> {
  if (!opts.agent.flow || opts.agent.flow.length === 0) {
    throw new TypeError(`agent ${opts.agent.name} has no flow`);
  }
  return runAgentSession(opts);
}
