/**
 * What the agent loop checkpoints after every completed step, so a worker that dies mid-run can
 * resume it without re-running a finished tool call or re-firing one-time events. Plain JSON.
 */
import type { EventPayload } from "@/lib/core/hooks/event-payloads";
import type { EventName, Outcome } from "@/lib/core/hooks/events";
import type { HookProgress, SuspendPoint } from "@/lib/core/hooks/runtime-types";
import type { ToolResult } from "@/lib/core/agent/tool-types";
import type { ChatMessage } from "./providers/model-provider";

export interface LoopTotals {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
  /** Model calls across the whole run (every agent of a flow). */
  turns: number;
}

/**
 * Where the current agent's turn loop stands:
 * - `model`: the next step is a model call;
 * - `model_post`: a response is recorded (in the transcript and totals) but model.post has not fired;
 * - `tools`: the tool calls of the last assistant message are being worked (see `toolCalls`);
 * - `turn_end`: the last answer had no tool calls; turn.end has not settled (a block sends the
 *   agent back to `model` with the hook's reason as the next user message).
 */
export type TurnPhase = "model" | "model_post" | "tools" | "turn_end";

/** One tool call's progress; each field is set once its step completed, so resume skips it. */
export interface ToolCallRecord {
  toolName: string;
  /** After tool.pre (or the agent's tool allowlist) decided. */
  verdict?: "allowed" | "denied";
  reason?: string;
  /** The input the call runs with when tool.pre's hooks changed it (a modify hook, an approver's edit). */
  input?: Record<string, unknown>;
  /**
   * Set, and saved durably, just before the tool runs: a resumed loop that finds it without a
   * result knows the call started and may have done its work (at most once, see lib/core/agent/README.md).
   */
  startedAt?: number;
  /** After the tool ran (or, for an interrupted call that is not safe to retry, the interruption). */
  result?: ToolResult;
  durationMs?: number;
  /** After tool.post fired. */
  postFired?: boolean;
}

/** One agent of the run: the only one for a plain agent, one per `flow` entry for a flow. */
export interface StageState {
  index: number;
  agentName: string;
  prompt: string;
  /** Model calls of this agent, checked against its maxTurns. */
  turns: number;
  /** agent.start fired and allowed (always true outside a flow). */
  started: boolean;
  promptSubmitted: boolean;
  stopped: boolean;
  phase: TurnPhase;
  /** A turn.end hook blocked in this stage: the agent works on at a hook's request. */
  stopHookActive?: boolean;
  /** The agent's answer, once its turns are done, while agent.stop decides whether it may stop. */
  answer?: string;
  messages: ChatMessage[];
  /** By tool call id. */
  toolCalls: Record<string, ToolCallRecord>;
  /** model.post data of the recorded response while `phase` is `model_post`. */
  pendingModelPost?: EventPayload<"model.post">;
}

export interface CompletedStage {
  agentName: string;
  response: string;
  messages: ChatMessage[];
}

export interface LoopState {
  version: 1;
  sessionStartFired: boolean;
  stage: StageState;
  completedStages: CompletedStage[];
  /** Hook reminders and context waiting for the next model call. */
  pendingReminders: string[];
  totals: LoopTotals;
  /** Time worked so far; a resumed run's clock continues from here, not from the crash. */
  elapsedMs: number;
  lastMetadata?: Record<string, unknown>;
  /**
   * A dispatch waiting for a person: the event was recorded and the hooks before the waiting one
   * ran; a resumed loop that reaches the same event (same key) continues that dispatch instead of
   * recording the event again.
   */
  suspended?: { event: EventName; key: string; data: Record<string, unknown>; seq?: number; point: SuspendPoint };
  /**
   * An event recorded whose dispatch has not finished: saved with the event, so a loop resumed
   * after a crash dispatches it again without recording it twice. `progress`: a hook of it was
   * about to act outside (a tool or command action), saved durably first; the resumed dispatch
   * goes on from that hook and records it as interrupted instead of running it twice.
   * `unrecorded`: the event is recorded after its hooks (a tool.post), so the resumed dispatch records it.
   */
  firing?: { event: EventName; key: string; seq?: number; progress?: HookProgress; unrecorded?: boolean };
  /** Set once the outcome is decided; session.end has fired when `ended` is true. */
  ending?: { outcome: Outcome; reason?: string; response?: string };
  ended: boolean;
}

export interface CheckpointStore {
  load(): Promise<LoopState | undefined>;
  /**
   * `durable`: resolve only once the state is stored (before and after a side effect). Otherwise a
   * store may batch the save with the ones that follow it in the same tick; a crash then replays
   * those steps, and since their events are written with the checkpoint, the record has no trace
   * of the first attempt (their hooks may run again).
   */
  save(state: LoopState, options?: { durable?: boolean }): Promise<void>;
}

export function newStage(index: number, agentName: string, prompt: string, started: boolean): StageState {
  return {
    index,
    agentName,
    prompt,
    turns: 0,
    started,
    promptSubmitted: false,
    stopped: false,
    phase: "model",
    messages: [],
    toolCalls: {},
  };
}

export function initialLoopState(agentName: string, prompt: string, isFlow: boolean): LoopState {
  return {
    version: 1,
    sessionStartFired: false,
    stage: newStage(0, agentName, prompt, !isFlow),
    completedStages: [],
    pendingReminders: [],
    totals: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, turns: 0 },
    elapsedMs: 0,
    ended: false,
  };
}

/** A checkpoint store in memory that round-trips through JSON, as a database column would. */
export function createInMemoryCheckpointStore(): CheckpointStore & { saved: () => LoopState | undefined; saves: number } {
  let json: string | undefined;
  const store = {
    saves: 0,
    async load() {
      return json === undefined ? undefined : (JSON.parse(json) as LoopState);
    },
    async save(state: LoopState) {
      json = JSON.stringify(state);
      store.saves++;
    },
    saved: () => (json === undefined ? undefined : (JSON.parse(json) as LoopState)),
  };
  return store;
}
