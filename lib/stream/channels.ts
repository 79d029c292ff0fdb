/**
 * NOTIFY channels and their small payloads. A payload names what changed; each web process reads
 * the rows itself, so payloads stay under PostgreSQL's 8000-byte limit and nothing is copied twice.
 */
export const CHANNELS = {
  runEvents: "hp_run_events",
  runs: "hp_runs",
  approvals: "hp_approvals",
} as const;

/** `seq` is the highest seq now stored for the run. */
export interface RunEventsNotice {
  runId: string;
  seq: number;
}
export interface RunNotice {
  runId: string;
}
export interface ApprovalNotice {
  approvalId: string;
}
