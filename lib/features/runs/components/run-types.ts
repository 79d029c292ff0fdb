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
}

export interface RunEvent {
  seq: number;
  type: string;
  ts: string;
  data: Record<string, unknown>;
}

export interface LedgerRow {
  id: number;
  eventSeq: number | null;
  hookKey: string;
  matched: boolean;
  verdict: string | null;
  reason: string | null;
  mode: string | null;
  action: string | null;
  durationMs: number | null;
  exitCode: number | null;
  output: string | null;
  stderr: string | null;
  ignored: boolean;
}
