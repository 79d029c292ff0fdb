/**
 * One event of an outside agent session (Claude Code through the bridge, or any runtime through
 * /api/v1/ingest/events): the session is a live run of a Hookplane agent, the event goes into the
 * run's stream (so the dashboard shows it as it happens), the agent's hooks decide, and the
 * decision goes back to the caller. No worker executes such a run: its loop runs elsewhere.
 *
 * An `approve` hook holds the caller's request until a person decides or the approval's own
 * timeout policy answers; if the caller goes away first (its request aborts), the approval is
 * abandoned (it can no longer be decided) and nothing records the tool as denied: the agent may
 * have gone on without the answer. A session that ends abandons what is still pending.
 */
import { recordLocalHookBlocks, type LocalHookBlock } from "./local-hook-outcomes";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { Db, DbHandle } from "@/db/client";
import { getAgent } from "@/db/queries/agents";
import { getAgentAndExternalRun, getOrStartExternalRun, listIdleExternalRuns, startExternalRunByRef, type SessionAgentRow, type SessionRunRow } from "@/db/queries/external-runs";
import { StaleRecordError, type RecordExpectation } from "@/db/queries/run-events";
import { recordOfflineEvents } from "@/db/queries/offline-decisions";
import { findAnnouncedToolCallId } from "@/db/queries/run-events";
import { finishRun, type RunRow } from "@/db/queries/runs";
import { AppError } from "@/lib/platform/api/app-error";
import { getConfig } from "@/lib/platform/config/config";
import { actorKeyOf, type Principal } from "@/lib/platform/auth/roles";
import { EVENT_NAMES, isBlockingEvent, type EventName } from "@/lib/core/hooks/events";
import type { EventActor } from "@/lib/core/hooks/event";
import type { FailMode } from "@/lib/core/agent/agent-spec";
import { recordedToolPost } from "@/lib/core/hooks/output-redaction";
import type { DispatchResult, RuntimeHook } from "@/lib/core/hooks/runtime-types";
import { processApprovalWaiter } from "@/lib/features/approvals/approval-waiter-registry";
import { openRunSession, type DispatchControl, type RunSession, type SessionRun } from "@/lib/features/runs/run-session";
import { codeExecutionSettings, ensureWorkspacesDir } from "@/lib/platform/security/code-execution";
import { cachedSession, forgetSession, mayCacheSession, rememberSession, sessionKey } from "./session-cache";
import { recordTranscriptUsage, type TranscriptUsage } from "./transcript-usage";
import { APPLIES_NOTHING, outputChangeRefusal, unappliedChange, type ModificationSupport } from "@/lib/core/dialects/modification-support";

/** The longest an approval may take (hook-model's duration cap); its own timeout ends it sooner. */
const HOLD_FOR_APPROVAL_MS = 7 * 24 * 3600 * 1000;

export interface SessionEvent {
  agent: string;
  sessionId: string;
  /** `runs.source`: "claude-code", or what a generic runtime calls itself. */
  source: string;
  /**
   * A canonical event is recorded and dispatched to the agent's hooks; any other type (Claude
   * Code's Stop, Notification, ...) is only recorded.
   */
  type: string;
  data: Record<string, unknown>;
  /** The prompt a new run shows until the session says more. */
  title: string;
  /**
   * Dispatch the recorded event as another canonical one, to some hooks only (Claude Code's
   * PermissionRequest is recorded as itself and asks tool.pre's `approve` hooks).
   */
  dispatch?: { as: EventName; only?: readonly string[] };
  /** Usage of the session's model calls read from its transcript (recorded once per message). */
  usage?: TranscriptUsage;
  /** What the developer's own hooks blocked on their machine, from the transcript (local-hook-outcomes.ts). */
  localBlocks?: LocalHookBlock[];
  /** The session goes on after a pause (Claude Code's resume, compact): a run it finished is reopened. */
  continues?: boolean;
  /**
   * The machine the event came from, as its CLI reports it (`X-Hookplane-Host`, `X-Hookplane-Os-User`,
   * `X-Hookplane-Ci` when it runs in CI): untrusted.
   */
  machine?: { host?: string; osUser?: string; ci?: boolean };
  /**
   * The event is about a tool call the session announced with `tool.pre`, but names it only by
   * tool and input (Claude Code's PermissionRequest has no tool_use_id): it takes that call's id,
   * so its approval is the call's own and its records line up with the call's. `"contained"`: the
   * call's input holds this one (Copilot CLI's permissionRequest drops preToolUse's `description`).
   */
  callByInput?: boolean | "contained";
  /**
   * What the agent can do with a changed call (modification-support.ts): a rewritten input, a
   * replaced output or an `ask` it cannot apply blocks the call. Left out, it applies none.
   */
  applies?: ModificationSupport;
}

export interface SessionEventResult {
  runId: string;
  /** The seq of the recorded event; 0 when nothing was recorded (a cancelled session). */
  seq: number;
  /** Undefined when no hooks were consulted (a recorded-only event). */
  result?: DispatchResult;
  /** The agent's fail mode (agents.fail_mode), which the answer carries for the CLI to keep for an outage. */
  failMode?: FailMode | null;
}

/** Every catalog event but approval.*, which Hookplane itself records around a person's decision. */
const CANONICAL_EVENTS = new Set<string>(EVENT_NAMES.filter((e) => !e.startsWith("approval.")));

export function isDispatchedEvent(type: string): type is EventName {
  return CANONICAL_EVENTS.has(type);
}

function denied(reason: string): DispatchResult {
  return { verdict: "block", reason, context: [], reminders: [], ledger: [] };
}

export async function ingestSessionEvent(
  handle: DbHandle,
  principal: Principal,
  input: SessionEvent,
  /**
   * The caller's signal (it aborts when the caller leaves), asked for only when a hook waits on it:
   * an AbortSignal is a few microseconds to make, and most hook calls never need one.
   */
  signal?: () => AbortSignal,
): Promise<SessionEventResult> {
  const { db } = handle;
  const dispatchAs = input.dispatch?.as ?? (isDispatchedEvent(input.type) ? input.type : undefined);
  const actor = Object.assign(actorOf(principal, input.machine), tierOf(input));
  const key = sessionKey({ projectId: principal.projectId, agentRef: input.agent, sessionId: input.sessionId, actorKey: actor.key });
  // A session's next tool call is decided on what this process remembers of it, and its write
  // checks that this still holds (session-cache.ts); when it no longer does, nothing was written
  // and the call is decided again below, from what the database says.
  const cached = decidedFromMemory(input, dispatchAs) ? cachedSession(db, key) : undefined;
  if (cached) {
    try {
      const decided = await decide(handle, { actor, ...input }, dispatchAs, { agent: cached.agent, run: cached.run, hooksFingerprint: cached.expect.hooksGeneration, personSpentToday: null, expect: cached.expect }, signal);
      decided.failMode = cached.agent.failMode;
      return decided;
    } catch (error) {
      if (!(error instanceof StaleRecordError)) throw error;
      forgetSession(db, key);
    }
  }
  // The token's (or session's) project decides whose agent the session is: a name of another
  // project's agent names nothing here; the session is the actor's own (another person's same id is another run).
  const runActor = { key: actor.key, userId: actor.userId, label: actor.label, host: actor.host, osUser: actor.osUser };
  // A session's start starts its run in the same commit group as the read (one round trip, not
  // two): a start never reuses an open run of its session, so the INSERT's ON CONFLICT decides
  // what the read would have (a resume reopens, and goes the long way).
  const [found, started] = await Promise.all([
    getAgentAndExternalRun(db, {
      projectId: principal.projectId,
      agentRef: input.agent,
      externalSessionId: input.sessionId,
      actorKey: actor.key,
      turnBoundary: input.type === "session.end",
    }),
    input.type === "session.start" && input.continues !== true
      ? startExternalRunByRef(db, {
          projectId: principal.projectId,
          agentRef: input.agent,
          externalSessionId: input.sessionId,
          source: input.source,
          prompt: input.title,
          createdBy: principal.label,
          actor: runActor,
        })
      : undefined,
  ]);
  if (!found) throw AppError.notFound(`Agent "${input.agent}"`);
  const { agent, hooksFingerprint, personSpentToday, lastTurnBoundary } = found;
  // Not started (the session's run is open already, or another call started it first): as any call.
  const { run } = started ? { run: started } : await getOrStartExternalRun(db, {
    current: found.run,
    projectId: agent.projectId,
    agentId: agent.id,
    externalSessionId: input.sessionId,
    source: input.source,
    prompt: input.title,
    createdBy: principal.label,
    actor: runActor,
    keepStopped: input.type !== "session.start",
    reopen: input.continues === true,
  });
  const remember =
    hooksFingerprint !== undefined && mayCacheSession(agent, run)
      ? () => rememberSession(db, key, { agent, run, expect: { hooksGeneration: hooksFingerprint, agentVersion: found.agentVersion } })
      : undefined;
  // The turn boundary read with the run is that run's: a run started just now has none but its start.
  const turnBoundary = found.run?.id === run.id ? lastTurnBoundary : undefined;
  const decided = await decide(handle, { actor, ...input }, dispatchAs, { agent, run, hooksFingerprint, personSpentToday, remember, lastTurnBoundary: turnBoundary }, signal);
  decided.failMode = agent.failMode;
  return decided;
}

/**
 * The calls decided on what the process remembers of their session: a hook call with nothing of
 * its own to read first (usage, a local hook's blocks, a call named only by its input, a resume)
 * that neither starts nor ends the session (those change the run: they read it).
 */
function decidedFromMemory(input: SessionEvent, dispatchAs: EventName | undefined): boolean {
  return (
    dispatchAs !== undefined &&
    dispatchAs !== "session.start" &&
    dispatchAs !== "session.end" &&
    input.dispatch === undefined &&
    input.usage === undefined &&
    input.localBlocks === undefined &&
    !input.callByInput &&
    !input.continues
  );
}

interface DecidedOn {
  agent: SessionAgentRow;
  run: SessionRunRow;
  hooksFingerprint: string | undefined;
  personSpentToday: number | null;
  /** Decided on what the process remembered: the write checks it still holds (StaleRecordError). */
  expect?: RecordExpectation;
  /** Read from the database, and fit to be remembered once the chain is known not to wait for a person. */
  remember?: () => void;
  /** A session's end: the run's newest turn boundary, read with the run (TURN_BOUNDARIES). */
  lastTurnBoundary?: string;
}

/** The event recorded in the session's run and decided by its hooks (ingestSessionEvent). */
async function decide(
  handle: DbHandle,
  input: SessionEvent & { actor: EventActor },
  dispatchAs: EventName | undefined,
  on: DecidedOn,
  signal: (() => AbortSignal) | undefined,
): Promise<SessionEventResult> {
  const { db } = handle;
  const { agent, run, hooksFingerprint, personSpentToday, expect } = on;
  const { actor } = input;
  if (input.callByInput && typeof input.data.toolCallId !== "string" && typeof input.data.toolName === "string") {
    const announced = await findAnnouncedToolCallId(db, {
      runId: run.id,
      toolName: input.data.toolName,
      toolInput: input.data.toolInput,
      ...(input.callByInput === "contained" && { contained: true }),
    });
    if (announced) input = { ...input, data: { ...input.data, toolCallId: announced } };
  }
  // An approval is keyed by (run, tool call, hook): a call without an id of its own gets one, so
  // two calls of one session never share an answer.
  if (dispatchAs === "tool.pre" && typeof input.data.toolCallId !== "string") input = { ...input, data: { ...input.data, toolCallId: randomUUID() } };
  const blocking = dispatchAs !== undefined && isBlockingEvent(dispatchAs);

  // Hookplane stopped the session (a cancel from the dashboard, its budget): its next gated step is denied, and stays so.
  if (run.status === "finished") {
    return { runId: run.id, seq: 0, result: blocking ? denied(stoppedReason(run.outcome, run.reason)) : undefined };
  }
  // The agent's chain, cached while the fingerprint read with the run holds.
  const session = await openSession(handle, run, agent, input, hooksFingerprint);
  if (mayWaitForPerson(session.hooks)) {
    // Such a chain records its event before it decides: never on what was remembered.
    if (expect) throw new StaleRecordError(run.id);
  } else on.remember?.();
  if (run.cancelRequested) {
    await endSession(db, session, { data: { outcome: "cancelled", reason: "cancelled in Hookplane" } });
    return { runId: run.id, seq: 0, result: blocking ? denied(stoppedReason("cancelled", null)) : undefined };
  }
  // The cost a session reported so far (its transcript, at its turn ends) against the agent's budget.
  if (agent.budgetUsd != null && run.costUsd >= agent.budgetUsd) {
    const reason = `cost $${run.costUsd.toFixed(4)} reached the budget of $${agent.budgetUsd}`;
    await endSession(db, session, { data: { outcome: "budget", reason } });
    return { runId: run.id, seq: 0, result: blocking ? denied(stoppedReason("budget", reason)) : undefined };
  }

  // A session that ends right after its person interrupted the turn (Codex's Interrupt, then its
  // SessionEnd in `codex exec`) was cancelled, whatever reason the agent gives for the end.
  if (input.type === "session.end" && input.data.outcome === "completed" && on.lastTurnBoundary === "turn.interrupted") {
    input = { ...input, data: { ...input.data, outcome: "cancelled", reason: `interrupted by the user${typeof input.data.reason === "string" ? ` (then ${input.data.reason})` : ""}` } };
  }
  if (input.usage) await recordTranscriptUsage(db, session, run.projectId, input.usage);
  if (input.localBlocks) await recordLocalHookBlocks(db, session, { projectId: run.projectId, agentName: agent.name, actor, blocks: input.localBlocks });
  // The person's daily budget on this agent (after the usage this event reports is counted: a
  // refused turn end still spent it): past it, each gated step of theirs is refused, and
  // recorded as refused, until 00:00 UTC (the session goes on: tomorrow is another budget).
  const perPerson = agent.dailyBudgetPerPersonUsd;
  if (blocking && perPerson != null && personSpentToday != null && personSpentToday >= perPerson) {
    const reason = `${actor.label} has spent $${personSpentToday.toFixed(4)} today in ${agent.name}'s sessions, reaching the daily budget per person of $${perPerson}; refused until 00:00 UTC`;
    const events = [{ type: input.type, data: input.data, ts: new Date() }];
    if (dispatchAs === "tool.pre") events.push({ type: "loop.tool_denied", data: { toolCallId: input.data.toolCallId, toolName: input.data.toolName, reason, by: "budget" }, ts: new Date() });
    const seq = await session.writer.recordDispatched(events);
    return { runId: run.id, seq, result: denied(reason) };
  }

  if (!dispatchAs) {
    const seq = await session.writer.record(input.type, input.data);
    await session.writer.flush();
    return { runId: run.id, seq };
  }

  // session.end hooks run even when the caller is gone: an audit trail that skips endings is none.
  const control: DispatchControl = {};
  if (signal && dispatchAs !== "session.end") Object.defineProperty(control, "signal", { get: signal, enumerable: true });
  if (input.dispatch?.only) control.onlyActions = input.dispatch.only;
  // The blocks of a change the agent cannot apply (below): the agent refused the call, not a hook.
  const refusedByAgent = new WeakSet<DispatchResult>();
  const toolDenied = (result: DispatchResult) => ({
    toolCallId: input.data.toolCallId,
    toolName: input.data.toolName,
    reason: result.reason ?? result.suspended?.abandoned ?? "nobody decided",
    by: refusedByAgent.has(result) ? ("agent" as const) : ("hook" as const),
  });
  // A change the agent cannot apply blocks the call (never run unmodified); one it applies is recorded.
  const support = input.applies ?? APPLIES_NOTHING(input.source);
  const applicable = (result: DispatchResult): DispatchResult => {
    // Also on a permission request (Claude Code's, Codex's): an approver's edit there must be one the agent applies.
    if (dispatchAs !== "tool.pre") return result;
    const refusal = unappliedChange(dispatchAs, result, support, input.data.toolInput, input.dispatch?.only !== undefined) ?? (result.verdict === "allow" ? outputChangeRefusal(session.hooks, input.data.toolName, support) : undefined);
    if (refusal === undefined) return result;
    // Refused by the agent, not run: what a limit spent on letting it through goes back.
    result.giveBack?.();
    const refused: DispatchResult = { ...result, verdict: "block", reason: refusal, toolInput: undefined, askUser: undefined, reminders: [...result.reminders, refusal] };
    refusedByAgent.add(refused);
    return refused;
  };
  const modifiedFacts = (result: DispatchResult) => {
    const facts: { type: string; data: Record<string, unknown>; ts: Date }[] = [];
    const common = { toolCallId: input.data.toolCallId, toolName: input.data.toolName, by: result.modifiedBy ?? [] };
    if (dispatchAs === "tool.pre" && result.verdict === "allow" && result.toolInput) facts.push({ type: "loop.tool_modified", data: { ...common, kind: "input", input: result.toolInput }, ts: new Date() });
    if (dispatchAs === "tool.post" && result.toolOutput) facts.push({ type: "loop.tool_modified", data: { ...common, kind: "output", applied: support.output }, ts: new Date() });
    return facts;
  };

  let seq: number;
  let result: DispatchResult;
  if (dispatchAs === "session.end") {
    ({ seq, result } = await endSession(db, session, { type: input.type, data: input.data }, control));
  } else if (blocking && mayWaitForPerson(session.hooks)) {
    // Only a blocking event can wait for a person (approve hooks are refused elsewhere): the
    // approval card shows the call while it waits, so the event is recorded first, its hooks'
    // ledger rows after.
    seq = await session.writer.record(input.type, input.data);
    result = applicable(await session.dispatch({ type: dispatchAs, data: input.data, seq }, control));
    const callerLeft = signal?.().aborted === true;
    // A deny the caller reads is a denial; an approval abandoned because the caller left is not one
    // (the agent may well have gone on and run the tool: its tool.post will say so).
    if (dispatchAs === "tool.pre" && (result.verdict === "block" || (result.verdict === "suspend" && !callerLeft))) {
      await session.writer.record("loop.tool_denied", toolDenied(result));
    }
    for (const fact of modifiedFacts(result)) await session.writer.record(fact.type, fact.data);
    await session.writer.flush();
  } else {
    // Nothing in the chain waits for a person: the hooks decide first, and the event, their ledger
    // rows and a denial are recorded together, one statement and one commit for the call.
    const arrived = new Date();
    result = applicable(await session.dispatch({ type: dispatchAs, data: input.data }, control));
    // A tool output a hook redacted (enforced or in shadow) is recorded redacted: the original is kept nowhere.
    const data = dispatchAs === "tool.post" ? recordedToolPost(input.data, result.redaction) : input.data;
    const events = [{ type: input.type, data, ts: arrived }];
    if (dispatchAs === "tool.pre" && result.verdict === "block") events.push({ type: "loop.tool_denied", data: toolDenied(result), ts: new Date() });
    events.push(...modifiedFacts(result));
    try {
      seq = await session.writer.recordDispatched(events, expect);
    } catch (error) {
      // Nothing was written and the call is decided again (ingestSessionEvent): this decision's
      // spending is given back, so a limit counts the call once.
      if (error instanceof StaleRecordError) result.giveBack?.();
      throw error;
    }
  }
  // The caller reads an abandoned wait as a deny: no person said yes. (Not a timeout, which the
  // approval settles and words itself: this approval was left pending or withdrawn.)
  const answer: DispatchResult =
    result.verdict === "suspend" ? { ...result, verdict: "block", reason: `nobody decided: ${result.suspended?.abandoned ?? "the approval is still pending"}` } : result;
  return { runId: run.id, seq, result: answer };
}

/** Whether a chain can hold a call for a person's decision (an `approve` hook, enabled or in shadow). */
function mayWaitForPerson(hooks: readonly RuntimeHook[]): boolean {
  return hooks.some((hook) => hook.action.type === "approve");
}

const MACHINE_FIELD_MAX = 200;

/**
 * Who acts in a call: the credential's person (whatever credential they used: the session is
 * theirs), or the token no person owns; their role in the project now; the machine as reported.
 */
export function actorOf(principal: Principal, machine: SessionEvent["machine"] = {}): EventActor {
  const cap = (value: string | undefined) => (value ? value.slice(0, MACHINE_FIELD_MAX) : undefined);
  return {
    key: actorKeyOf(principal),
    ...(principal.serviceAccount && { service: principal.serviceAccount.name }),
    ...(principal.userId && { userId: principal.userId }),
    ...(principal.email && { email: principal.email }),
    label: principal.email ?? principal.label,
    role: principal.role,
    ...(principal.groups && { groups: principal.groups }),
    ...(cap(machine.host) && { host: cap(machine.host) }),
    ...(cap(machine.osUser) && { osUser: cap(machine.osUser) }),
  };
}

/**
 * Which of the person's agents sent the event: a subagent when the event names one (Claude Code's
 * `agent_id`, kept as `agentId`), with the session that delegated to it; headless when the CLI
 * runs in CI; the session's own agent otherwise.
 */
function tierOf(input: SessionEvent): Pick<EventActor, "tier" | "subagent" | "parent"> {
  const subagentId = input.data.agentId;
  if (typeof subagentId === "string" && subagentId !== "") {
    const type = typeof input.data.agentType === "string" && input.data.agentType !== "" ? input.data.agentType : undefined;
    return { tier: "subagent", subagent: { id: subagentId, ...(type && { type }) }, parent: { sessionId: input.sessionId } };
  }
  return { tier: input.machine?.ci ? "headless" : "interactive" };
}

/** The actor a stored run names (a session that went quiet is ended on its behalf). */
function actorOfRun(run: RunRow): EventActor | undefined {
  if (!run.actorKey) return undefined;
  return {
    key: run.actorKey,
    ...(run.actorUserId && { userId: run.actorUserId }),
    label: run.actorLabel ?? run.actorKey,
    ...(run.actorHost && { host: run.actorHost }),
    ...(run.actorOsUser && { osUser: run.actorOsUser }),
  };
}

/**
 * The calls an agent's fail mode decides when Hookplane cannot answer (bin/lib/hook.cjs's `gating`
 * events of every agent: tool calls, prompts, Cursor's subagent starts). A turn's end is not one:
 * blocking it with no answer would keep the agent working, so the CLI lets it end whatever the mode.
 */
const FAIL_MODE_GATES = new Set<string>(["tool.pre", "user.prompt.submit", "agent.start"]);

/** A decision the `hookplane` CLI took alone while Hookplane was unreachable (its offline spool). */
export interface OfflineDecision {
  /** Made by the CLI: the same decision sent twice is recorded once. */
  id: string;
  decision: "allowed" | "blocked";
  reason: string;
  decidedAt: Date;
  /** The fail mode the CLI applied, and where it had it from (the agent's policy it kept, its flag, its default); older CLIs do not say. */
  failMode?: FailMode;
  failModeFrom?: "policy" | "flag" | "default";
}

/**
 * Records a decision taken offline in the session's run, as its person's, marked `offline` with
 * who decided (the CLI alone), what and why: the event at the time it happened, and a denial after
 * a refused tool call. No hook runs (the call is long over). The entry's id and the events go in
 * one transaction, so a replay, or two CLIs sending the same spool, records it once.
 */
export async function recordOfflineDecision(
  handle: DbHandle,
  principal: Principal,
  input: SessionEvent,
  offline: OfflineDecision,
): Promise<"recorded" | "duplicate" | "unknown_agent"> {
  const { db } = handle;
  const actor = actorOf(principal, input.machine);
  const found = await getAgentAndExternalRun(db, { projectId: principal.projectId, agentRef: input.agent, externalSessionId: input.sessionId, actorKey: actor.key });
  if (!found) return "unknown_agent";
  const { run } = await getOrStartExternalRun(db, {
    current: found.run,
    projectId: found.agent.projectId,
    agentId: found.agent.id,
    externalSessionId: input.sessionId,
    source: input.source,
    prompt: input.title,
    createdBy: principal.label,
    actor: { key: actor.key, userId: actor.userId, label: actor.label, host: actor.host, osUser: actor.osUser },
    keepStopped: true,
  });
  const canonical = input.dispatch?.as ?? input.type;
  // A gated call let through while the agent's policy is to fail closed: the CLI did not have the
  // policy (never answered since it was set), ran with a fail-open flag an older CLI obeys, or was
  // changed. Either way the call ran ungoverned against policy: marked, and alerted on.
  const gated = FAIL_MODE_GATES.has(canonical);
  const againstPolicy = found.agent.failMode === "closed" && offline.decision === "allowed" && gated;
  const marker = {
    decision: offline.decision,
    reason: offline.reason,
    decidedAt: offline.decidedAt.toISOString(),
    by: "hookplane CLI",
    ...(offline.failMode && { failMode: offline.failMode, failModeFrom: offline.failModeFrom }),
    ...(found.agent.failMode && { policy: found.agent.failMode }),
    ...(againstPolicy && { againstPolicy: true }),
  };
  const events = [{ type: input.type, data: { ...input.data, offline: marker }, ts: offline.decidedAt }];
  const refusedCall = canonical === "tool.pre" && offline.decision === "blocked";
  if (refusedCall) {
    events.push({ type: "loop.tool_denied", data: { toolCallId: input.data.toolCallId, toolName: input.data.toolName, reason: offline.reason, by: "offline" } as never, ts: offline.decidedAt });
  }
  const toolName = canonical === "tool.pre" && typeof input.data.toolName === "string" ? input.data.toolName : undefined;
  return recordOfflineEvents(db, {
    id: offline.id,
    projectId: run.projectId,
    runId: run.id,
    agentId: found.agent.id,
    decision: offline.decision,
    failMode: offline.failMode ?? null,
    againstPolicy,
    decidedAt: offline.decidedAt,
    events,
    totals: toolName || refusedCall ? { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, toolsUsed: toolName ? [toolName] : [], blocked: refusedCall } : undefined,
  });
}

function stoppedReason(outcome: string | null, reason: string | null): string {
  if (outcome === "budget") return `This session reached its budget in Hookplane${reason ? `: ${reason}` : ""}`;
  return `This session was cancelled in Hookplane${reason && reason !== "cancelled in Hookplane" ? `: ${reason}` : ""}`;
}

type AgentRef = { id: string; name: string };

/** Workspace folders this process made already (bounded): a session's calls that use it need it to exist, not a mkdir. */
const madeWorkspaces = new Set<string>();

/**
 * A session's workspace folder on the server: named on every call (hooks see it as `cwd`), made
 * only when a hook or tool may use it (run-session.ts, ensureWorkspace): the agent works on the
 * developer's machine, and most chains (guards, limits, approvals) never touch the folder.
 */
function sessionWorkspace(runId: string): { dir: string; ensure: () => void } {
  const dir = path.join(codeExecutionSettings().workspacesDir, runId);
  return {
    dir,
    ensure() {
      if (madeWorkspaces.has(dir) && existsSync(dir)) return;
      mkdirSync(path.join(ensureWorkspacesDir(), runId), { recursive: true });
      if (madeWorkspaces.size >= 10_000) madeWorkspaces.clear();
      madeWorkspaces.add(dir);
    },
  };
}

async function openSession(
  handle: DbHandle,
  run: SessionRun,
  agent: AgentRef,
  input: Pick<SessionEvent, "sessionId" | "source"> & { actor?: EventActor },
  hooksFingerprint?: string,
): Promise<RunSession> {
  const workspace = sessionWorkspace(run.id);
  return openRunSession({
    hooksFingerprint,
    db: handle.db,
    run,
    agent,
    mode: "bridge",
    waiter: await processApprovalWaiter(handle),
    // The bridge holds the caller's request while a person decides: its own timeout ends it sooner.
    holdMs: HOLD_FOR_APPROVAL_MS,
    workspaceDir: workspace.dir,
    ensureWorkspace: workspace.ensure,
    eventFields: { sessionId: input.sessionId, triggerType: input.source, ...(input.actor && { actor: input.actor }) },
  });
}

/**
 * session.end recorded, then its hooks run; the run is finished (its pending approvals abandoned)
 * in the commit that records the last of it: with the end event when no hook runs on session.end,
 * else with those hooks' ledger rows (a round trip fewer either way: the statements of one turn of
 * the event loop commit together). The event is `type` (the session's own name for its end).
 */
async function endSession(
  db: Db,
  session: RunSession,
  end: { type?: string; data: Record<string, unknown> },
  control: DispatchControl = {},
): Promise<{ seq: number; result: DispatchResult }> {
  const { data } = end;
  const finish = () =>
    finishRun(db, {
      id: session.runId,
      outcome: typeof data.outcome === "string" ? data.outcome : "completed",
      reason: typeof data.reason === "string" ? data.reason : undefined,
      response: typeof data.response === "string" ? data.response : undefined,
    });
  const endHooks = session.hooks.some((hook) => hook.event === "session.end");
  const [seq] = await Promise.all([session.writer.record(end.type ?? "session.end", data), endHooks ? undefined : finish()]);
  const result = await session.dispatch({ type: "session.end", data, seq }, control);
  await Promise.all([session.writer.flush(), endHooks ? finish() : undefined]);
  return { seq, result };
}

/**
 * Ends outside sessions that went quiet (Claude Code closed without SessionEnd) for `idleMs`
 * (HOOKPLANE_SESSION_IDLE_MS unless told): each gets its `session.end` with outcome `timeout`,
 * hooks included, so no run stays "running" forever.
 */
export async function expireIdleSessions(handle: DbHandle, idleMs: number = getConfig().HOOKPLANE_SESSION_IDLE_MS): Promise<number> {
  let ended = 0;
  for (const run of await listIdleExternalRuns(handle.db, { idleMs })) {
    const agent = await getAgent(handle.db, { projectId: run.projectId, ref: run.agentId });
    if (!agent) continue;
    const minutes = Math.round(idleMs / 60_000);
    const session = await openSession(handle, run, { id: agent.id, name: agent.name }, { sessionId: run.externalSessionId!, source: run.source, actor: actorOfRun(run) });
    await endSession(handle.db, session, { data: { outcome: "timeout", reason: `no event from the session for ${minutes} min` } });
    ended++;
  }
  return ended;
}
