/**
 * What every step of a session stands on (agent-session.ts runs the steps): its state and limits,
 * and the means of recording: events and facts, hook dispatches with their reminders, checkpoints,
 * the ending and the result. A base class so the steps read as the loop they are.
 */
import type { ToolDefinition } from "@/lib/core/agent/tool-types";
import type { EventPayload, FactName, FactPayload } from "@/lib/core/hooks/event-payloads";
import type { EventName, Outcome } from "@/lib/core/hooks/events";
import type { HookProgress } from "@/lib/core/hooks/runtime-types";
import { recordedToolPost } from "@/lib/core/hooks/output-redaction";
import type { AgentSessionOptions, AgentWithId, DispatchResult, HookDispatch, HookEffects, RecordOptions, SessionResult, SessionTotals } from "./loop-ports";
import { LoopInterrupted, Suspension, step } from "./loop-signals";
import type { LoopState, StageState } from "./loop-state";
import { MessageTransforms } from "./message-transforms";
import type { ChatMessage, ModelProvider } from "./providers/model-provider";
import { hookTexts, lastAssistant } from "./session-texts";

export abstract class SessionBase {
  protected readonly now: () => number;
  protected readonly top: AgentWithId;
  protected readonly flowNames: string[] | undefined;
  protected readonly startedAt: number;
  /** Cancel (the caller's signal) and the wall-clock timeout both abort in-flight provider and tool calls. */
  protected readonly inflight = new AbortController();
  protected timedOut = false;
  protected readonly transforms: MessageTransforms;
  protected readonly stageAgents = new Map<number, AgentWithId>();

  protected constructor(
    protected readonly opts: AgentSessionOptions,
    protected readonly state: LoopState,
    protected readonly resumed: boolean,
  ) {
    this.now = opts.now ?? Date.now;
    this.top = opts.agent;
    this.flowNames = this.top.flow && this.top.flow.length > 0 ? this.top.flow : undefined;
    this.startedAt = this.now() - state.elapsedMs;
    this.transforms = new MessageTransforms(opts.transforms, (type, data) => this.fact(type, data));
  }

  protected get isFlow(): boolean {
    return this.flowNames !== undefined;
  }

  // ---- recording -------------------------------------------------------------------------------

  protected async emit(type: string, data: Record<string, unknown>, options?: RecordOptions): Promise<number | undefined> {
    return (await (options ? this.opts.emit(type, data, options) : this.opts.emit(type, data))) ?? undefined;
  }

  /** The loop's own facts, typed by the catalog (lib/core/hooks/event-payloads.ts). */
  protected fact<T extends FactName>(type: T, data: FactPayload<T>): Promise<number | undefined> {
    return this.emit(type, data);
  }

  protected async save(durable = false): Promise<void> {
    this.state.elapsedMs = this.now() - this.startedAt;
    // Messages waiting for after_create_message are reported only once they are stored for good.
    await this.opts.checkpoint?.save(this.state, { durable: durable || this.transforms.hasCreated });
    await this.transforms.afterSaved();
  }

  /** What tells one firing of an event from another, so a resumed loop finds the one that waits. */
  protected keyOf(type: EventName, data: Record<string, unknown>): string {
    return typeof data.toolCallId === "string" ? `${type}:${data.toolCallId}` : `${type}:${this.state.stage.index}:${this.state.totals.turns}`;
  }

  /**
   * One lifecycle event: recorded once, then its hooks run. The dispatch that waited for a person
   * is continued, not repeated, when the resumed loop gets back to it.
   *
   * A tool.post is the exception: its hooks run first and the event is recorded after them, with
   * the output a hook redacted in place of the tool's (output-redaction.ts), so the secret the
   * model was kept from is not in the record either. Nothing on tool.post can wait for a person
   * (approve pauses blocking events only); a crash mid-dispatch leaves no event, and the resumed
   * loop dispatches it again (`firing.unrecorded` when a hook had begun an outside effect).
   */
  protected async fire<T extends EventName>(type: T, data: EventPayload<T>): Promise<DispatchResult> {
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
    /** Whether the event is recorded yet (a tool.post is recorded after its hooks). */
    let recorded = true;
    /** Before a hook acts outside, where the dispatch stands is stored (at most once, like tools). */
    const effects = (interrupted = firing?.progress): HookEffects => ({
      ...(interrupted && { interrupted }),
      beforeSideEffect: async (progress: HookProgress) => {
        state.firing = { event: type, key, ...(seq !== undefined && { seq }), ...(!recorded && { unrecorded: true }), progress };
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
      recorded = firing.unrecorded !== true;
      result = await dispatch({ type, data, seq }, undefined, effects());
    } else if (type === "tool.post") {
      recorded = false;
      result = await dispatch({ type, data }, undefined, effects());
    } else {
      seq = await this.emit(type, data);
      // The event and the note that it was recorded are stored together (one batch).
      state.firing = { event: type, key, ...(seq !== undefined && { seq }) };
      await this.save();
      result = await dispatch({ type, data, seq }, undefined, effects());
    }
    // The intent of a hook action could not be stored: the worker cannot record this run.
    if (unrecorded !== undefined) throw unrecorded;
    if (!recorded) seq = await this.emit(type, type === "tool.post" ? recordedToolPost(data, result.redaction) : data, { dispatched: true });
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
  protected stageAgentFor(type: EventName): { id: string; name: string } | undefined {
    if (!this.isFlow || type === "session.start" || type === "session.end" || type === "error") return undefined;
    const agent = this.stageAgents.get(this.state.stage.index);
    return agent ? { id: agent.id, name: agent.name } : undefined;
  }

  /** The run ends while a hook waits for a person: that hook's row says the wait was abandoned. */
  protected async abandonWait(why: string): Promise<void> {
    const waiting = this.state.suspended;
    if (!waiting) return;
    const agent = this.stageAgentFor(waiting.event);
    await this.opts.dispatch({ type: waiting.event, data: waiting.data, seq: waiting.seq, ...(agent && { agent }) }, { point: waiting.point, abandon: why });
    this.state.suspended = undefined;
    await this.save();
  }

  /** Appends a message to the agent's transcript, as the transforms leave it. */
  protected async addMessage(stage: StageState, agent: AgentWithId, message: ChatMessage): Promise<ChatMessage> {
    const stored = await this.transforms.toStore(agent, message);
    stage.messages.push(stored);
    return stored;
  }

  protected queueReminders(result: DispatchResult): void {
    this.state.pendingReminders.push(...hookTexts(result));
  }

  /** Flushes pending reminders into the transcript, so the model sees them on this call. */
  protected async flushReminders(stage: StageState, agent: AgentWithId, texts: string[], when: "pending" | "model.pre"): Promise<void> {
    if (texts.length === 0) return;
    for (const text of texts) await this.addMessage(stage, agent, { role: "system_reminder", text });
    await this.fact("loop.reminders", { texts, source: when });
  }

  // ---- limits ----------------------------------------------------------------------------------

  protected throwIfInterrupted(): void {
    const { signal } = this.opts;
    if (signal?.aborted && signal.reason instanceof LoopInterrupted) throw signal.reason;
  }

  protected interruption(): { outcome: Outcome; reason: string } | undefined {
    this.throwIfInterrupted();
    if (this.opts.signal?.aborted) return { outcome: "cancelled", reason: "cancelled" };
    if (this.timedOut || this.now() - this.startedAt >= this.top.timeoutMs) {
      return { outcome: "timeout", reason: `timed out after ${this.top.timeoutMs} ms` };
    }
    return undefined;
  }

  protected end(outcome: Outcome, reason?: string, response?: string): void {
    this.state.ending = {
      outcome,
      ...(reason !== undefined && { reason }),
      response: response ?? (lastAssistant(this.state.stage.messages)?.text || undefined),
    };
  }

  // ---- the agents, their tools and providers ---------------------------------------------------

  protected async readMetadata(): Promise<Record<string, unknown> | undefined> {
    if (!this.opts.readMetadata) return undefined;
    try {
      return await this.opts.readMetadata();
    } catch {
      // A missing or broken metadata file must not fail the run; hooks see no metadata.
      return undefined;
    }
  }

  protected async agentOfStage(stage: StageState): Promise<AgentWithId> {
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

  protected providerOf(agent: AgentWithId): ModelProvider {
    return (this.opts.providerFor ?? (() => this.opts.provider!))(agent);
  }

  protected offeredTools(agent: AgentWithId): ToolDefinition[] {
    const all = this.opts.tools.list();
    return agent.tools.includes("*") ? all : all.filter((t) => agent.tools.includes(t.name));
  }

  // ---- the answer ------------------------------------------------------------------------------

  protected totals(): SessionTotals {
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

  protected result(): SessionResult {
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
