import type { RunActor } from "@/components/ui/run-actor";

export type { RunActor };

/** What the run page reads from the API: the run, its events and its hook ledger rows. */
export interface RunSummary {
  id: string;
  agentId: string;
  agentName?: string;
  status: string;
  outcome?: string;
  reason?: string;
  prompt: string;
  response?: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  /** Where it came from: dashboard, api, schedule, rerun, or a coding agent's CLI (claude-code, codex, ...). */
  source?: string;
  /** The run this one re-ran. */
  parentRunId?: string;
  /** A coding agent's session bridged in (not re-runnable here). */
  bridged?: boolean;
  /** A bridged session's person (GET /api/v1/runs: `actor`). */
  actor?: RunActor;
}

export interface RunEvent {
  seq: number;
  type: string;
  ts: string;
  data: Record<string, unknown>;
}

