/**
 * The ports the agent loop needs from its caller: hooks, the event sink, prices, agents by name.
 * The loop imports nothing of the database or the hook runtime; the worker wires these in.
 */
import type { AgentSpec } from "@/lib/core/agent/agent-spec";
import type { EventName, Outcome } from "@/lib/core/hooks/events";
import type { HookProgress, SuspendPoint } from "@/lib/core/hooks/runtime-types";
import type { OutputRedaction } from "@/lib/core/hooks/output-redaction";
import type { ToolRegistry, ToolResult } from "@/lib/core/agent/tool-types";
import type { CheckpointStore } from "./loop-state";
import type { ChatMessage, ModelProvider, TokenUsage, ToolCall } from "./providers/model-provider";

export type AgentWithId = AgentSpec & { id: string };

export interface LifecycleEvent {
  type: EventName;
  data: Record<string, unknown>;
  /**
   * In a flow, the stage agent the event belongs to (agent.start/stop, prompts, model and tool
   * calls, turn.end): its own hooks apply as when it runs alone, and matchers see its name.
   * Absent for the run's own events (session.start, session.end, error) and outside flows.
   */
  agent?: { id: string; name: string };
  /** The seq the sink gave the event when it was recorded, if it gives seqs. */
  seq?: number;
}

/** The hook runtime's answer for one event (hook-model.md), as far as the loop needs it. */
export interface DispatchResult {
  /** `suspend`: a hook waits for a person; the loop checkpoints and returns `suspended`. */
  verdict: "allow" | "block" | "skip" | "suspend";
  suspended?: SuspendPoint & { abandoned?: string };
  reason?: string;
  /** Injected text: for model.pre into this call, otherwise into the next one. */
  context?: string[];
  /** Outcome notes (`hook x blocked shell: ...`), for the next model call. */
  reminders?: string[];
  output?: string;
  /** tool.pre: the input the call must run with, when hooks changed it. */
  toolInput?: Record<string, unknown>;
  /** tool.post: what the model reads instead of the tool's output. */
  toolOutput?: { value: unknown };
  /** tool.post: what the record keeps of the output a hook redacted (enforced or in shadow). */
  redaction?: OutputRedaction;
  modifiedBy?: string[];
  /** tool.pre: a hook wants the agent's own user asked; this loop has none, so the call is refused. */
  askUser?: { hookId: string; reason: string };
}

/**
 * Runs the hooks bound to an event. Fills in run and agent ids itself. Expected never to throw.
 * `resume` continues a dispatch that suspended (the event was recorded then, not again);
 * with `abandon`, nobody will wait for its approval any more and the chain ends there.
 */
export type HookDispatch = (
  event: LifecycleEvent,
  resume?: { point: SuspendPoint; abandon?: string },
  effects?: HookEffects,
) => Promise<DispatchResult>;

/**
 * At most once for hook actions (`tool`, `command`): the dispatch calls `beforeSideEffect` before
 * one starts, and the loop stores the point in its checkpoint; a dispatch resumed after a crash
 * gets it back as `interrupted` (see DispatchOptions in lib/hooks/runtime-types.ts).
 */
export interface HookEffects {
  beforeSideEffect?: (point: HookProgress) => Promise<void>;
  interrupted?: HookProgress;
}

/**
 * Records what happened: every lifecycle event (one call each, before its hooks run; a tool.post
 * after them, with `dispatched`, see SessionBase.fire) and the loop's own facts (`loop.*`). A
 * throw here means the run cannot be recorded: the loop stops without session.end, and a rerun
 * with the same checkpoint resumes it.
 */
export type EventSink = (type: string, data: Record<string, unknown>, options?: RecordOptions) => number | void | Promise<number | void>;

export interface RecordOptions {
  /** The event's hooks already ran (dispatched without a seq): the ledger rows they left are about it. */
  dispatched?: boolean;
}

/** Which agent a transform runs for (a flow's stages each have their own). */
export interface TransformScope {
  agent: AgentWithId;
}

/**
 * Transforms of what the agent sees and stores: Standard Agents' transform hooks (and its
 * after_create_message event), implemented by the caller (the worker runs the operator's code
 * hooks). Every method is optional and async and returns the possibly changed data; the loop hands
 * each one a copy, so changing the argument in place changes nothing. A method that throws, or
 * returns something that is not the expected shape, is recorded (`loop.transform_error`) and the
 * data it was given is kept. Where each fires: lib/core/agent/README.md.
 */
export interface LoopTransforms {
  /** filter_messages: the stored transcript, before a model call; the result is sent, not stored. */
  filterMessages?(messages: ChatMessage[], scope: TransformScope): Promise<ChatMessage[]>;
  /** prefilter_llm_history: the list about to be sent (after filterMessages); not stored. */
  prefilterHistory?(messages: ChatMessage[], scope: TransformScope): Promise<ChatMessage[]>;
  /** before_create_message: a user, assistant or system_reminder message about to enter the transcript; the result is stored. Its role cannot change. */
  beforeCreateMessage?(message: ChatMessage, scope: TransformScope): Promise<ChatMessage>;
  /** after_create_message: a message (tool results included) once the checkpoint holding it is saved. */
  afterCreateMessage?(message: ChatMessage, scope: TransformScope): Promise<void>;
  /** after_tool_call_success / after_tool_call_failure (`ok` = !isError): null removes the result. */
  afterToolCall?(result: ToolResult, call: ToolCall, ok: boolean, scope: TransformScope): Promise<ToolResult | null>;
  /** before_store_tool_result: the result about to be recorded (checkpoint, tool.post, transcript). */
  beforeStoreToolResult?(result: ToolResult, call: ToolCall, scope: TransformScope): Promise<ToolResult>;
}

/** The price table: USD for one model call. */
export type CostOf = (model: string, usage: TokenUsage) => number;

export interface AgentSessionOptions {
  agent: AgentWithId;
  /** Identifies the run for the caller's ports; the loop puts no ids in event data (dispatch and emit do). */
  runId: string;
  prompt: string;
  /** The model of a plain agent. A flow asks `providerFor` per agent, falling back to this. */
  provider?: ModelProvider;
  providerFor?: (agent: AgentWithId) => ModelProvider;
  tools: ToolRegistry;
  dispatch: HookDispatch;
  emit: EventSink;
  costOf: CostOf;
  signal?: AbortSignal;
  /** Milliseconds clock; Date.now by default. */
  now?: () => number;
  checkpoint?: CheckpointStore;
  /** herdctl's metadataFile: read after each round of tool calls and at the end. */
  readMetadata?: () => Promise<Record<string, unknown> | undefined>;
  /** Template variables (Tailored AI's last_run, ...), part of session.start's data. */
  vars?: Record<string, unknown>;
  /** Scheduled runs: a non-empty session.start hook output is prepended to the prompt (Tailored AI). */
  prependSessionStartOutput?: boolean;
  /** Multi-agent flows: the agents named in `agent.flow`. */
  resolveAgent?: (name: string) => Promise<AgentWithId | undefined>;
  /** Transforms of messages and tool results (the operator's code hooks); none when left out. */
  transforms?: LoopTransforms;
}

export interface SessionTotals {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
  durationMs: number;
  turns: number;
}

/** The run reached an outcome; session.end has fired. */
export interface SessionEnded {
  status: "ended";
  outcome: Outcome;
  reason?: string;
  response?: string;
  totals: SessionTotals;
  /** The last agent's transcript. */
  messages: ChatMessage[];
}

/**
 * The run waits for a person: its checkpoint holds where, and running the session again with
 * that checkpoint (once the approval settled) continues the waiting dispatch.
 */
export interface SessionSuspended {
  status: "suspended";
  outcome?: undefined;
  reason?: undefined;
  response?: undefined;
  waitingOn: { event: EventName; approvalId: string; hookId: string };
  totals: SessionTotals;
  messages: ChatMessage[];
}

export type SessionResult = SessionEnded | SessionSuspended;
