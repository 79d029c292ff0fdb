/**
 * NOTIFY channels and their small payloads. A payload names what changed; each web process reads
 * the rows itself, so payloads stay under PostgreSQL's 8000-byte limit and nothing is copied twice.
 */
export const CHANNELS = {
  runEvents: "hp_run_events",
  runs: "hp_runs",
  approvals: "hp_approvals",
  /** A credential ended or a user's role changed: every web process rechecks its sockets. */
  access: "hp_access",
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
/** Names whose access changed: a signed-out session, a revoked token, a demoted or removed user. */
export interface AccessNotice {
  userId?: string;
  tokenId?: string;
  /** SHA-256 of the session cookie (the `sessions.token_hash`). */
  sessionHash?: string;
}
