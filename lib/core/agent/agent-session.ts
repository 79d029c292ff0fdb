/**
 * One run of an agent (or of a flow of agents) as an object: its checkpointed state, its limits,
 * and one method per step of the loop. `run()` drives the steps to an outcome or a suspension.
 * See loop.ts for the failure model.
 */
import type { AgentSessionOptions, AgentWithId, SessionResult } from "./loop-ports";
import { LoopInterrupted, StepFailure, Suspension, step } from "./loop-signals";
import { initialLoopState, newStage, type LoopState, type StageState } from "./loop-state";
import type { ModelProvider } from "./providers/model-provider";
import { hookTexts, lastAssistant, trimmedStack } from "./session-texts";
import { ToolCallSteps } from "./tool-call-steps";

/** What the model (and tool.post hooks) read for a side-effecting call a crash or shutdown cut short. */
export { INTERRUPTED_OUTPUT } from "./session-texts";

export class AgentSession extends ToolCallSteps {
  private constructor(opts: AgentSessionOptions, state: LoopState, resumed: boolean) {
    super(opts, state, resumed);
  }

  /** The session of `opts`, from its checkpoint when it has one. */
  static async open(opts: AgentSessionOptions): Promise<AgentSession> {
    if (!opts.provider && !opts.providerFor) throw new TypeError("runAgentSession needs provider or providerFor");
    const flow = opts.agent.flow && opts.agent.flow.length > 0 ? opts.agent.flow : undefined;
    const loaded = await opts.checkpoint?.load();
    const state = loaded ?? initialLoopState(flow ? flow[0] : opts.agent.name, opts.prompt, flow !== undefined);
    return new AgentSession(opts, state, loaded !== undefined);
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
}
