/**
 * What a bridged session's calls read before their hooks decide (its agent, its run, the hooks'
 * generation), kept by this process between the session's calls, so a tool call costs one
 * statement (its write) instead of two (issue 26). It is never trusted: the write checks it
 * (db/queries/run-events.ts, RecordExpectation: the run still running and not asked to cancel, the
 * hooks' generation and the agent's last change as remembered) and writes nothing if it no longer
 * holds; the call is then decided again from what the database says, and the entry dropped.
 *
 * Only a session with nothing else to read is kept: an agent with no budget (a run's cost and a
 * person's spend today are read every call) and a chain in which no hook can wait for a person.
 * Per database handle (tests open several), at most MAX_SESSIONS, the least recently used dropped.
 */
import type { Db } from "@/db/client";
import type { SessionAgentRow, SessionRunRow } from "@/db/queries/external-runs";
import type { RecordExpectation } from "@/db/queries/run-events";

export interface CachedSession {
  agent: SessionAgentRow;
  run: SessionRunRow;
  expect: RecordExpectation;
}

const MAX_SESSIONS = 10_000;
const byDb = new WeakMap<Db, Map<string, CachedSession>>();

/** A session as its calls name it: the project, the agent as referred to, the session id, who acts. */
export function sessionKey(params: { projectId: string; agentRef: string; sessionId: string; actorKey: string }): string {
  return `${params.projectId}\u0000${params.agentRef}\u0000${params.sessionId}\u0000${params.actorKey}`;
}

export function cachedSession(db: Db, key: string): CachedSession | undefined {
  const sessions = byDb.get(db);
  const found = sessions?.get(key);
  if (found) {
    sessions!.delete(key);
    sessions!.set(key, found);
  }
  return found;
}

/** Whether a session may be kept: nothing it needs is read anew each call (see above). */
export function mayCacheSession(agent: SessionAgentRow, run: SessionRunRow): boolean {
  return agent.budgetUsd == null && agent.dailyBudgetPerPersonUsd == null && run.status === "running" && !run.cancelRequested;
}

export function rememberSession(db: Db, key: string, session: CachedSession): void {
  let sessions = byDb.get(db);
  if (!sessions) byDb.set(db, (sessions = new Map()));
  sessions.delete(key);
  if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
  sessions.set(key, session);
}

export function forgetSession(db: Db, key: string): void {
  byDb.get(db)?.delete(key);
}
