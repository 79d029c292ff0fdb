/**
 * One run of an agent (or of a flow of agents) as an object: its checkpointed state, its limits,
 * and one method per step of the loop. `run()` drives the steps to an outcome or a suspension.
 * See loop.ts for the failure model.
 */
import type { ToolDefinition } from "@/lib/core/agent/tool-types";
import type { EventPayload, FactName, FactPayload } from "@/lib/core/hooks/event-payloads";
import type { EventName, Outcome } from "@/lib/core/hooks/events";
import type { HookProgress } from "@/lib/core/hooks/runtime-types";
import type { AgentSessionOptions, AgentWithId, DispatchResult, HookDispatch, HookEffects, SessionResult, SessionTotals } from "./loop-ports";
import { LoopInterrupted, StepFailure, Suspension, step } from "./loop-signals";
import { initialLoopState, newStage, type LoopState, type StageState } from "./loop-state";
import { MessageTransforms } from "./message-transforms";
import type { ChatMessage, ModelProvider, ToolCall } from "./providers/model-provider";

/** What the model (and tool.post hooks) read for a side-effecting call a crash or shutdown cut short. */
export const INTERRUPTED_OUTPUT = "interrupted: the previous attempt may or may not have completed";

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

export class AgentSession {
  private readonly now: () => number;
  private readonly top: AgentWithId;
  private readonly flowNames: string[] | undefined;
  private readonly startedAt: number;
  /** Cancel (the caller's signal) and the wall-clock timeout both abort in-flight provider and tool calls. */
  private readonly inflight = new AbortController();
  private timedOut = false;
  private readonly transforms: MessageTransforms;
  private readonly stageAgents = new Map<number, AgentWithId>();

  private constructor(
    private readonly opts: AgentSessionOptions,
    private readonly state: LoopState,
    private readonly resumed: boolean,
  ) {
    this.now = opts.now ?? Date.now;
    this.top = opts.agent;
    this.flowNames = this.top.flow && this.top.flow.length > 0 ? this.top.flow : undefined;
    this.startedAt = this.now() - state.elapsedMs;
    this.transforms = new MessageTransforms(opts.transforms, (type, data) => this.fact(type, data));
  }

  /** The session of `opts`, from its checkpoint when it has one. */
  static async open(opts: AgentSessionOptions): Promise<AgentSession> {
    if (!opts.provider && !opts.providerFor) throw new TypeError("runAgentSession needs provider or providerFor");
    const flow = opts.agent.flow && opts.agent.flow.length > 0 ? opts.agent.flow : undefined;
    const loaded = await opts.checkpoint?.load();
    const state = loaded ?? initialLoopState(flow ? flow[0] : opts.agent.name, opts.prompt, flow !== undefined);
    return new AgentSession(opts, state, loaded !== undefined);
  }

  private get isFlow(): boolean {
    return this.flowNames !== undefined;
  }

  /** Runs to an outcome (session.end fired), or to a suspension while a hook waits for a person. */
  async run(): Promise<SessionResult> {
    const onCancel = () => this.onCancel();
    this.opts.signal?.addEventListener("abort", onCancel, { once: true });
    if (this.opts.signal?.aborted) this.inflight.abort(this.opts.signal.reason);
    const timer = setTimeout(
      () => {
        this.timedOut = true;
        this.inflight.abort(new Error("timeout"));
      },
      Math.max(0, this.top.timeoutMs - this.state.elapsedMs),
    );
    try {
      if (this.state.ended) return this.result();
      if (this.resumed) {
        const { stage, totals } = this.state;
        await this.fact("loop.resumed", { stage: stage.index, phase: stage.phase, turn: totals.turns });
      }
      await this.endIfStoppedWhileWaiting();
      if (!this.state.ending) {
        const suspended = await this.runUntilOutcome();
        if (suspended) return suspended;
      }
      return await this.finish();
    } finally {
      clearTimeout(timer);
      this.opts.signal?.removeEventListener("abort", onCancel);
    }
  }

  private onCancel(): void {
    const reason = this.opts.signal?.reason;
    if (reason instanceof LoopInterrupted && reason.hardStop && !reason.hardStop.aborted) {
      // A graceful shutdown: the step in flight finishes unless the grace period runs out first.
      reason.hardStop.addEventListener("abort", () => this.inflight.abort(reason), { once: true });
      return;
    }
    this.inflight.abort(reason);
  }

  // ---- the steps -------------------------------------------------------------------------------

  /** Works the session to an ending; answers the suspension when a hook waits for a person. */
  private async runUntilOutcome(): Promise<SessionResult | undefined> {
    try {
      if (!(await this.startSession())) return undefined;
      while (!this.state.ending) {
        const stage = this.state.stage;
        const agent = await this.agentOfStage(stage);
        if (!(await this.startStage(stage, agent))) return undefined;
        // The answer is kept in the checkpoint while agent.stop decides, so a run resumed from a
        // wait there (an approval) continues that dispatch instead of calling the model again.
        if (stage.answer === undefined) {
          const answer = await this.runTurns(agent, stage);
          if (answer === undefined) return undefined;
          stage.answer = answer;
        }
        await this.finishStage(stage, agent, stage.answer);
      }
      return undefined;
    } catch (err) {
      if (err instanceof Suspension) {
        const stop = this.interruption();
        if (!stop) return { status: "suspended", waitingOn: err.waitingOn, totals: this.totals(), messages: this.state.stage.messages };
        await this.abandonWait(stop.reason);
        this.end(stop.outcome, stop.reason);
        await this.save();
        return undefined;
      }
      if (!(err instanceof StepFailure)) throw err;
      if (err.original instanceof LoopInterrupted) throw err.original;
      const stop = this.interruption();
      if (stop) this.end(stop.outcome, stop.reason);
      else {
        // hook-model.md: `error` comes just before session.end, so the failed agent stops first.
        await this.stopStartedFlowAgent();
        await this.fire("error", { message: err.message, stack: trimmedStack(err.original) });
        this.end("failed", err.message);
      }
      await this.save();
      return undefined;
    }
  }

  /** session.start, once per run; false when a hook skips the run. */
  private async startSession(): Promise<boolean> {
    if (this.state.sessionStartFired) return true;
    const start = await this.fire("session.start", { ...this.opts.vars, prompt: this.opts.prompt });
    this.state.sessionStartFired = true;
    if (start.verdict === "block" || start.verdict === "skip") {
      this.end("skipped", start.reason ?? `session.start hook answered ${start.verdict}`);
      await this.save();
      return false;
    }
    this.queueReminders(start);
    if (this.opts.prependSessionStartOutput && start.output?.trim()) {
      this.state.stage.prompt = `${start.output.trim()}\n\n${this.state.stage.prompt}`;
    }
    await this.save();
    return true;
  }

  /** agent.start and user.prompt.submit of a stage, once each; false when a hook blocks them. */
  private async startStage(stage: StageState, agent: AgentWithId): Promise<boolean> {
    if (!stage.started) {
      const start = await this.fire("agent.start", { agentName: agent.name });
      if (start.verdict === "block") {
        this.end("skipped", start.reason ?? `agent.start of ${agent.name} was blocked`);
        await this.save();
        return false;
      }
      this.queueReminders(start);
      stage.started = true;
      await this.save();
    }
    if (!stage.promptSubmitted) {
      const submit = await this.fire("user.prompt.submit", { prompt: stage.prompt });
      if (submit.verdict === "block") {
        this.end("skipped", submit.reason ?? "the prompt was blocked");
        await this.save();
        return false;
      }
      this.queueReminders(submit);
      await this.addMessage(stage, agent, { role: "user", text: stage.prompt });
      stage.promptSubmitted = true;
      await this.save();
    }
    return true;
  }

  /**
   * A stage answered: the flow goes on to its next agent, or the run completes. In a flow,
   * agent.stop may send the agent back to work (maxTurns still bounds it).
   */
  private async finishStage(stage: StageState, agent: AgentWithId, answer: string): Promise<void> {
    if (this.isFlow) {
      const stop = await this.fire("agent.stop", { agentName: agent.name });
      this.queueReminders(stop);
      if (stop.verdict === "block") {
        stage.answer = undefined;
        await this.keepWorking(stage, agent, stop.reason);
        await this.save();
        return;
      }
      stage.stopped = true;
    }
    const flowNames = this.flowNames;
    if (!flowNames || stage.index === flowNames.length - 1) {
      this.end("completed", undefined, answer);
      await this.save();
      return;
    }
    this.state.completedStages.push({ agentName: stage.agentName, response: answer, messages: stage.messages });
    this.state.stage = newStage(stage.index + 1, flowNames[stage.index + 1], answer, false);
    await this.save();
  }

  /** The turn loop of one agent; returns its answer, or undefined when the run ends on a limit. */
  private async runTurns(agent: AgentWithId, stage: StageState): Promise<string | undefined> {
    const provider = this.providerOf(agent);
    for (;;) {
      if (stage.phase === "model" && !(await this.callModel(agent, stage, provider))) return undefined;
      if (stage.phase === "model_post") {
        const answer = await this.afterModel(stage);
        if (answer.done) return answer.text;
      }
      if (stage.phase === "turn_end") {
        const answer = await this.endTurn(agent, stage);
        if (answer.done) return answer.text;
        continue;
      }
      if (stage.phase === "tools") {
        const calls = lastAssistant(stage.messages)!.toolCalls;
        if (!(await this.runToolCalls(agent, stage, calls))) return undefined;
        stage.phase = "model";
        // The results are in the transcript now; the checkpoint keeps only the turn in progress.
        stage.toolCalls = {};
        await this.save();
      }
    }
  }

  /** model.pre, the provider call, its cost and message; false when a limit ends the run first. */
  private async callModel(agent: AgentWithId, stage: StageState, provider: ModelProvider): Promise<boolean> {
    const stop = this.interruption();
    if (stop) {
      this.end(stop.outcome, stop.reason);
      return false;
    }
    if (stage.turns >= agent.maxTurns) {
      this.end("max_turns", `reached maxTurns (${agent.maxTurns})`);
      return false;
    }
    const { state } = this;
    await this.flushReminders(stage, agent, state.pendingReminders.splice(0), "pending");
    // `model` so a hook (Loom's log among them) can say which model is about to be called.
    const pre = await this.fire("model.pre", { model: agent.model, turn: state.totals.turns + 1, messageCount: stage.messages.length });
    await this.flushReminders(stage, agent, hookTexts(pre), "model.pre");
    const messages = await this.transforms.toSend(agent, stage.messages);

    const response = await step(() =>
      provider.complete({
        model: agent.model,
        ...(agent.instructions && { system: agent.instructions }),
        messages,
        tools: this.offeredTools(agent),
        signal: this.inflight.signal,
      }),
    );
    this.throwIfInterrupted();
    const costUsd = await step(() => this.opts.costOf(agent.model, response.usage));
    const answer = await this.addMessage(stage, agent, { role: "assistant", text: response.text, toolCalls: response.toolCalls });
    if (answer.role !== "assistant") throw new Error("unreachable: the assistant message changed role");
    stage.turns++;
    state.totals.turns++;
    state.totals.inputTokens += response.usage.inputTokens;
    state.totals.outputTokens += response.usage.outputTokens;
    state.totals.cachedTokens += response.usage.cachedTokens;
    state.totals.costUsd += costUsd;
    stage.pendingModelPost = {
      model: agent.model,
      turn: state.totals.turns,
      stopReason: response.stopReason,
      inputTokens: response.usage.inputTokens,
      outputTokens: response.usage.outputTokens,
      cachedTokens: response.usage.cachedTokens,
      costUsd,
      toolCallCount: answer.toolCalls.length,
      text: answer.text,
    };
    stage.phase = "model_post";
    await this.save();
    return true;
  }

  /** model.post, then the budget; done (without an answer) when the budget ends the run. */
  private async afterModel(stage: StageState): Promise<{ done: false } | { done: true; text: string | undefined }> {
    if (!stage.pendingModelPost) throw new Error("checkpoint in model_post without the response's model.post data");
    const post = await this.fire("model.post", stage.pendingModelPost);
    this.queueReminders(post);
    stage.pendingModelPost = undefined;
    const answer = lastAssistant(stage.messages)!;
    const { budgetUsd } = this.top;
    if (budgetUsd !== undefined && this.state.totals.costUsd > budgetUsd) {
      this.end("budget", `cost $${this.state.totals.costUsd.toFixed(6)} exceeded the budget of $${budgetUsd}`);
      await this.save();
      return { done: true, text: undefined };
    }
    stage.phase = answer.toolCalls.length === 0 ? "turn_end" : "tools";
    await this.save();
    return { done: false };
  }

  /**
   * turn.end after an answer without tool calls: the agent's answer, unless a hook blocks the stop
   * (Claude Code's Stop): then its reason is the next user message and the agent works on.
   */
  private async endTurn(agent: AgentWithId, stage: StageState): Promise<{ done: false } | { done: true; text: string }> {
    const answer = lastAssistant(stage.messages)!;
    const turnEnd = await this.fire("turn.end", { stopHookActive: stage.stopHookActive === true, response: answer.text });
    this.queueReminders(turnEnd);
    stage.phase = "model";
    if (turnEnd.verdict === "block") {
      await this.keepWorking(stage, agent, turnEnd.reason);
      stage.stopHookActive = true;
      await this.save();
      return { done: false };
    }
    await this.save();
    return { done: true, text: answer.text };
  }

  /** A turn.end or agent.stop block: the reason goes to the agent as the next user message. */
  private async keepWorking(stage: StageState, agent: AgentWithId, reason: string | undefined): Promise<void> {
    await this.addMessage(stage, agent, { role: "user", text: reason?.trim() || "A hook asked you to keep working." });
  }

  /** Works the tool calls of the last assistant message; each completed step is checkpointed. */
  private async runToolCalls(agent: AgentWithId, stage: StageState, calls: ToolCall[]): Promise<boolean> {
    const offered = new Set(this.offeredTools(agent).map((t) => t.name));
    for (const call of calls) {
      const record = (stage.toolCalls[call.id] ??= { toolName: call.name });
      if (record.verdict === "denied" || record.postFired) continue;
      const stop = this.interruption();
      if (stop) {
        this.end(stop.outcome, stop.reason);
        return false;
      }
      if (!record.verdict && !(await this.decideToolCall(agent, call, offered))) continue;
      if (!record.result) await this.executeToolCall(agent, call, record);
      const post = await this.fire("tool.post", {
        toolName: call.name,
        toolInput: call.input,
        toolCallId: call.id,
        output: record.result!.output,
        isError: record.result!.isError,
        durationMs: record.durationMs ?? 0,
      });
      this.queueReminders(post);
      record.postFired = true;
      await this.save();
    }
    // Results go in only once every call is settled: OpenAI wants them right after the assistant turn.
    for (const call of calls) {
      const record = stage.toolCalls[call.id];
      const denied = record.verdict === "denied";
      await this.addMessage(stage, agent, {
        role: "tool_result",
        toolCallId: call.id,
        toolName: call.name,
        output: denied ? deniedOutput(record.reason ?? "denied") : record.result!.output,
        isError: denied || record.result!.isError,
      });
    }
    const metadata = await this.readMetadata();
    if (metadata !== undefined && JSON.stringify(metadata) !== JSON.stringify(this.state.lastMetadata)) {
      this.state.lastMetadata = metadata;
      await this.fact("loop.metadata", { metadata });
    }
    return true;
  }

  /** Whether a call may run: offered to the agent, then tool.pre. Denials are recorded. */
  private async decideToolCall(agent: AgentWithId, call: ToolCall, offered: Set<string>): Promise<boolean> {
    const record = this.state.stage.toolCalls[call.id];
    if (!offered.has(call.name)) {
      record.verdict = "denied";
      record.reason = `tool "${call.name}" is not available to agent ${agent.name}`;
      await this.fact("loop.tool_denied", { toolCallId: call.id, toolName: call.name, reason: record.reason, by: "agent" });
      await this.save();
      return false;
    }
    const pre = await this.fire("tool.pre", { toolName: call.name, toolInput: call.input, toolCallId: call.id });
    this.queueReminders(pre);
    if (pre.verdict === "block") {
      record.verdict = "denied";
      record.reason = pre.reason ?? "blocked by a hook";
      await this.fact("loop.tool_denied", { toolCallId: call.id, toolName: call.name, reason: record.reason, by: "hook" });
    } else record.verdict = "allowed";
    await this.save();
    return record.verdict === "allowed";
  }

  /**
   * Runs an allowed call at most once: its intent is stored before the effect and its result right
   * after (a read-only call's result with its tool.post). A call that started before a crash or
   * shutdown and left no result may have done its work: it runs again only when the tool is safe
   * to retry (or listed in the agent's `retryTools`); otherwise it is reported as
   * interrupted, and the model and tool.post hooks decide what comes next.
   */
  private async executeToolCall(agent: AgentWithId, call: ToolCall, record: StageState["toolCalls"][string]): Promise<void> {
    // Safe to retry: the tool only reads, or the agent opted it into retry (`retryTools`).
    const retryable = this.opts.tools.retrySafe(call.name, call.input) || (agent.retryTools?.includes(call.name) ?? false);
    if (record.startedAt !== undefined && !retryable) {
      record.result = { output: INTERRUPTED_OUTPUT, isError: true };
      record.durationMs = 0;
      await this.fact("loop.tool_interrupted", { toolCallId: call.id, toolName: call.name, retried: false });
      await this.save(true);
      return;
    }
    if (record.startedAt !== undefined) await this.fact("loop.tool_interrupted", { toolCallId: call.id, toolName: call.name, retried: true });
    record.startedAt = this.now();
    await this.save(true);
    const result = await step(() => this.opts.tools.call(call.name, call.input, this.inflight.signal));
    // A tool cut short by a shutdown did not finish: its intent stays without a result, and the
    // resumed run reports it as interrupted (or runs it again if it only reads). One that
    // finished within a graceful shutdown's grace period is recorded before the loop stops.
    if (this.inflight.signal.aborted) this.throwIfInterrupted();
    record.durationMs = this.now() - record.startedAt;
    record.result = await this.transforms.toolResult(agent, call, result);
    // The result of a call that must not run twice is stored before anything else happens. One
    // that may run again (it only reads) goes out with its tool.post: a crash before that write
    // runs it again on resume, and it is still recorded once.
    await this.save(!this.opts.tools.retrySafe(call.name, call.input));
    this.throwIfInterrupted();
  }

  /** The ending: a wait still open is abandoned, a started flow agent stopped, then session.end. */
  private async finish(): Promise<SessionResult> {
    const { state } = this;
    // Ended by a limit or a cancel found between steps while a hook still waited for a person.
    if (state.suspended) await this.abandonWait(state.ending!.reason ?? state.ending!.outcome);
    await this.stopStartedFlowAgent();

    const ending = state.ending!;
    const durationMs = this.now() - this.startedAt;
    const metadata = await this.readMetadata();
    await this.fire("session.end", {
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
    await this.save();
    state.elapsedMs = durationMs;
    return this.result();
  }

  /** A cancel or timeout that came while the run waited for a person ends it here. */
  private async endIfStoppedWhileWaiting(): Promise<void> {
    if (!this.state.suspended || this.state.ending) return;
    const stop = this.interruption();
    if (!stop) return;
    await this.abandonWait(stop.reason);
    this.end(stop.outcome, stop.reason);
    await this.save();
  }

  /** A flow agent that started but did not finish still gets its agent.stop, before session.end. */
  private async stopStartedFlowAgent(): Promise<void> {
    const { stage } = this.state;
    if (!this.isFlow || !stage.started || stage.stopped) return;
    await this.fire("agent.stop", { agentName: stage.agentName });
    stage.stopped = true;
    await this.save();
  }

  // ---- recording -------------------------------------------------------------------------------

  private async emit(type: string, data: Record<string, unknown>): Promise<number | undefined> {
    return (await this.opts.emit(type, data)) ?? undefined;
  }

  /** The loop's own facts, typed by the catalog (lib/core/hooks/event-payloads.ts). */
  private fact<T extends FactName>(type: T, data: FactPayload<T>): Promise<number | undefined> {
    return this.emit(type, data);
  }

  private async save(durable = false): Promise<void> {
    this.state.elapsedMs = this.now() - this.startedAt;
    // Messages waiting for after_create_message are reported only once they are stored for good.
    await this.opts.checkpoint?.save(this.state, { durable: durable || this.transforms.hasCreated });
    await this.transforms.afterSaved();
  }

  /** What tells one firing of an event from another, so a resumed loop finds the one that waits. */
  private keyOf(type: EventName, data: Record<string, unknown>): string {
    return typeof data.toolCallId === "string" ? `${type}:${data.toolCallId}` : `${type}:${this.state.stage.index}:${this.state.totals.turns}`;
  }

  /**
   * One lifecycle event: recorded once, then its hooks run. The dispatch that waited for a person
   * is continued, not repeated, when the resumed loop gets back to it.
   */
  private async fire<T extends EventName>(type: T, data: EventPayload<T>): Promise<DispatchResult> {
    const { state } = this;
    const key = this.keyOf(type, data);
    // In a flow, the stage agent rides along: its own hooks apply and matchers see its name.
    const agent = this.stageAgentFor(type);
    const dispatch: HookDispatch = (event, resume, effects) => this.opts.dispatch(agent ? { ...event, agent } : event, resume, effects);
    const waiting = state.suspended;
    const firing = state.firing && state.firing.event === type && state.firing.key === key ? state.firing : undefined;
    let result: DispatchResult;
    let seq: number | undefined;
    let unrecorded: unknown;
    /** Before a hook acts outside, where the dispatch stands is stored (at most once, like tools). */
    const effects = (interrupted = firing?.progress): HookEffects => ({
      ...(interrupted && { interrupted }),
      beforeSideEffect: async (progress: HookProgress) => {
        state.firing = { event: type, key, ...(seq !== undefined && { seq }), progress };
        try {
          await this.save(true);
        } catch (err) {
          unrecorded ??= err;
          throw err;
        }
      },
    });
    if (waiting && waiting.event === type && waiting.key === key) {
      seq = waiting.seq;
      // A hook after the approval had started its effect when the run stopped: go on from there.
      result = firing?.progress
        ? await dispatch({ type, data, seq }, undefined, effects())
        : await dispatch({ type, data, seq }, { point: waiting.point }, effects(undefined));
      state.suspended = undefined;
    } else if (firing) {
      // Recorded before a crash, its hooks cut short: they run again (those that had begun an outside
      // effect are recorded as interrupted), and the event is not re-recorded.
      seq = firing.seq;
      result = await dispatch({ type, data, seq }, undefined, effects());
    } else {
      seq = await this.emit(type, data);
      // The event and the note that it was recorded are stored together (one batch).
      state.firing = { event: type, key, ...(seq !== undefined && { seq }) };
      await this.save();
      result = await dispatch({ type, data, seq }, undefined, effects());
    }
    // The intent of a hook action could not be stored: the worker cannot record this run.
    if (unrecorded !== undefined) throw unrecorded;
    state.firing = undefined;
    if (result.verdict === "suspend" && result.suspended && result.suspended.abandoned === undefined) {
      const { abandoned: _, ...point } = result.suspended;
      state.suspended = { event: type, key, data, ...(seq !== undefined && { seq }), point };
      await this.save();
      throw new Suspension({ event: type, approvalId: point.approvalId, hookId: point.hookId });
    }
    return result;
  }

  /**
   * The stage agent an event of a flow belongs to: every event of a stage (agent.start/stop,
   * prompts, model and tool calls, turn.end), never the run's own start, end and error.
   */
  private stageAgentFor(type: EventName): { id: string; name: string } | undefined {
    if (!this.isFlow || type === "session.start" || type === "session.end" || type === "error") return undefined;
    const agent = this.stageAgents.get(this.state.stage.index);
    return agent ? { id: agent.id, name: agent.name } : undefined;
  }

  /** The run ends while a hook waits for a person: that hook's row says the wait was abandoned. */
  private async abandonWait(why: string): Promise<void> {
    const waiting = this.state.suspended;
    if (!waiting) return;
    const agent = this.stageAgentFor(waiting.event);
    await this.opts.dispatch({ type: waiting.event, data: waiting.data, seq: waiting.seq, ...(agent && { agent }) }, { point: waiting.point, abandon: why });
    this.state.suspended = undefined;
    await this.save();
  }

  /** Appends a message to the agent's transcript, as the transforms leave it. */
  private async addMessage(stage: StageState, agent: AgentWithId, message: ChatMessage): Promise<ChatMessage> {
    const stored = await this.transforms.toStore(agent, message);
    stage.messages.push(stored);
    return stored;
  }

  private queueReminders(result: DispatchResult): void {
    this.state.pendingReminders.push(...hookTexts(result));
  }

  /** Flushes pending reminders into the transcript, so the model sees them on this call. */
  private async flushReminders(stage: StageState, agent: AgentWithId, texts: string[], when: "pending" | "model.pre"): Promise<void> {
    if (texts.length === 0) return;
    for (const text of texts) await this.addMessage(stage, agent, { role: "system_reminder", text });
    await this.fact("loop.reminders", { texts, source: when });
  }

  // ---- limits ----------------------------------------------------------------------------------

  private throwIfInterrupted(): void {
    const { signal } = this.opts;
    if (signal?.aborted && signal.reason instanceof LoopInterrupted) throw signal.reason;
  }

  private interruption(): { outcome: Outcome; reason: string } | undefined {
    this.throwIfInterrupted();
    if (this.opts.signal?.aborted) return { outcome: "cancelled", reason: "cancelled" };
    if (this.timedOut || this.now() - this.startedAt >= this.top.timeoutMs) {
      return { outcome: "timeout", reason: `timed out after ${this.top.timeoutMs} ms` };
    }
    return undefined;
  }

  private end(outcome: Outcome, reason?: string, response?: string): void {
    this.state.ending = {
      outcome,
      ...(reason !== undefined && { reason }),
      response: response ?? (lastAssistant(this.state.stage.messages)?.text || undefined),
    };
  }

  // ---- the agents, their tools and providers ---------------------------------------------------

  private async readMetadata(): Promise<Record<string, unknown> | undefined> {
    if (!this.opts.readMetadata) return undefined;
    try {
      return await this.opts.readMetadata();
    } catch {
      // A missing or broken metadata file must not fail the run; hooks see no metadata.
      return undefined;
    }
  }

  private async agentOfStage(stage: StageState): Promise<AgentWithId> {
    const { top, opts } = this;
    if (!this.isFlow) return top;
    const cached = this.stageAgents.get(stage.index);
    if (cached) return cached;
    const agent = await step(async () => {
      if (!opts.resolveAgent) throw new Error(`agent ${top.name} is a flow, but no resolveAgent was given`);
      const found = await opts.resolveAgent(stage.agentName);
      if (!found) throw new Error(`flow ${top.name}: unknown agent "${stage.agentName}"`);
      if (found.flow && found.flow.length > 0) throw new Error(`flow ${top.name}: nested flow "${found.name}" is not supported`);
      return found;
    });
    this.stageAgents.set(stage.index, agent);
    return agent;
  }

  private providerOf(agent: AgentWithId): ModelProvider {
    return (this.opts.providerFor ?? (() => this.opts.provider!))(agent);
  }

  private offeredTools(agent: AgentWithId): ToolDefinition[] {
    const all = this.opts.tools.list();
    return agent.tools.includes("*") ? all : all.filter((t) => agent.tools.includes(t.name));
  }

  // ---- the answer ------------------------------------------------------------------------------

  private totals(): SessionTotals {
    const { totals, elapsedMs } = this.state;
    return {
      inputTokens: totals.inputTokens,
      outputTokens: totals.outputTokens,
      cachedTokens: totals.cachedTokens,
      costUsd: totals.costUsd,
      durationMs: elapsedMs,
      turns: totals.turns,
    };
  }

  private result(): SessionResult {
    const ending = this.state.ending!;
    return {
      status: "ended",
      outcome: ending.outcome,
      ...(ending.reason !== undefined && { reason: ending.reason }),
      ...(ending.response !== undefined && { response: ending.response }),
      totals: this.totals(),
      messages: this.state.stage.messages,
    };
  }
}
