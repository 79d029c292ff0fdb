/**
 * The ports the agent loop needs from its caller: hooks, the event sink, prices, agents by name.
 * The loop imports nothing of the database or the hook runtime; the worker wires these in.
 */
import type { AgentSpec } from "@/lib/agents/agent-spec";
import type { EventName, Outcome } from "@/lib/hooks/events";
import type { ToolRegistry } from "@/lib/tools/tool-types";
import type { CheckpointStore } from "./loop-state";
import type { ChatMessage, ModelProvider, TokenUsage } from "./providers/model-provider";

export type AgentWithId = AgentSpec & { id: string };

export interface LifecycleEvent {
  type: EventName;
  data: Record<string, unknown>;
}

/** The hook runtime's answer for one event (hook-model.md), as far as the loop needs it. */
export interface DispatchResult {
  verdict: "allow" | "block" | "skip";
  reason?: string;
  /** Injected text: for model.pre into this call, otherwise into the next one. */
  context?: string[];
  /** Outcome notes (`hook x blocked shell: ...`), for the next model call. */
  reminders?: string[];
  output?: string;
}

/** Runs the hooks bound to an event. Fills in run and agent ids itself. Expected never to throw. */
export type HookDispatch = (event: LifecycleEvent) => Promise<DispatchResult>;

/**
 * Records what happened: every lifecycle event (one call each, before its hooks run) and the
 * loop's own facts (`loop.*`). A throw here means the run cannot be recorded: the loop stops
 * without session.end, and a rerun with the same checkpoint resumes it.
 */
export type EventSink = (type: string, data: Record<string, unknown>) => void | Promise<void>;

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
}

export interface SessionTotals {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
  durationMs: number;
  turns: number;
}

export interface SessionResult {
  outcome: Outcome;
  reason?: string;
  response?: string;
  totals: SessionTotals;
  /** The last agent's transcript. */
  messages: ChatMessage[];
}
