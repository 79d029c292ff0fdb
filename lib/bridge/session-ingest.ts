/**
 * One event of an outside agent session (Claude Code through the bridge, or any runtime through
 * /api/v1/ingest/events): the session is a live run of a Hookplane agent, the event goes into the
 * run's stream (so the dashboard shows it as it happens), the agent's hooks decide, and the
 * decision goes back to the caller. No worker executes such a run: its loop runs elsewhere.
 *
 * An `approve` hook holds the caller's request until a person decides or the approval's own
 * timeout policy answers; if the caller goes away first (its request aborts), the answer is a
 * deny nobody reads and the approval stays in the inbox until its timeout.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { DbHandle } from "@/db/client";
import { getOrStartExternalRun, listIdleExternalRuns, noteExternalToolUse } from "@/db/queries/external-runs";
import { getAgent } from "@/db/queries/agents";
import { appendMemoryNote, readMemoryNote } from "@/db/queries/memory-notes";
import { appendRunEvents } from "@/db/queries/run-events";
import { finishRun, getRun, setRunStatus, type RunRow } from "@/db/queries/runs";
import { findAgentOr404 } from "@/lib/agents/agent-service";
import type { Principal } from "@/lib/auth/roles";
import type { HookEvent } from "@/lib/hooks/event";
import { isBlockingEvent, type EventName } from "@/lib/hooks/events";
import type { DispatchResult } from "@/lib/hooks/runtime-types";
import { createDbApprovalPort } from "@/lib/runs/approval-port";
import { processApprovalWaiter } from "@/lib/runs/approval-waiter-registry";
import { createRunHookRuntime } from "@/lib/runs/hook-runtime-factory";
import { loadRunHooks } from "@/lib/runs/run-hooks";
import { ensureWorkspacesDir } from "@/lib/security/code-execution";
import { createToolRegistry } from "@/lib/tools/tool-registry";

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
}

export interface SessionEventResult {
  runId: string;
  /** The seq of the recorded event; 0 when nothing was recorded (a cancelled session). */
  seq: number;
  /** Undefined when no hooks were consulted (a recorded-only event). */
  result?: DispatchResult;
}

const CANONICAL_EVENTS = new Set<string>([
  "session.start",
  "user.prompt.submit",
  "model.pre",
  "model.post",
  "tool.pre",
  "tool.post",
  "agent.start",
  "agent.stop",
  "error",
  "session.end",
]);

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
  signal?: AbortSignal,
): Promise<SessionEventResult> {
  const { db } = handle;
  // An approval is keyed by (run, tool call, hook): a call without an id of its own gets one, so
  // two calls of one session never share an answer.
  if (input.type === "tool.pre" && typeof input.data.toolCallId !== "string") input = { ...input, data: { ...input.data, toolCallId: randomUUID() } };
  const agent = await findAgentOr404(db, input.agent);
  const { run } = await getOrStartExternalRun(db, {
    agentId: agent.id,
    externalSessionId: input.sessionId,
    source: input.source,
    prompt: input.title,
    createdBy: principal.label,
    keepCancelled: input.type !== "session.start",
  });
  const blocking = isDispatchedEvent(input.type) && isBlockingEvent(input.type);

  // A cancel from the dashboard stops the session: its next gated step is denied, and stays so.
  if (run.status === "finished") {
    return { runId: run.id, seq: 0, result: blocking ? denied(`This session was cancelled in Hookplane${run.reason ? `: ${run.reason}` : ""}`) : undefined };
  }
  if (run.cancelRequested) {
    await endSession(handle, run, agent, { outcome: "cancelled", reason: "cancelled in Hookplane" }, input);
    return { runId: run.id, seq: 0, result: blocking ? denied("This session was cancelled in Hookplane") : undefined };
  }

  const seq = await appendRunEvents(db, { runId: run.id, events: [{ type: input.type, data: input.data }] });
  if (input.type === "tool.pre" && typeof input.data.toolName === "string" && !run.toolsUsed.includes(input.data.toolName)) {
    await noteExternalToolUse(db, { id: run.id, toolName: input.data.toolName });
  }
  if (!isDispatchedEvent(input.type)) return { runId: run.id, seq };

  const result = await dispatchToHooks(handle, run, agent, input, seq, signal);
  if (input.type === "tool.pre" && result.verdict === "block") {
    await appendRunEvents(db, {
      runId: run.id,
      events: [{ type: "loop.tool_denied", data: { toolCallId: input.data.toolCallId, toolName: input.data.toolName, reason: result.reason, by: "hook" } }],
    });
    await noteExternalToolUse(db, { id: run.id, toolName: String(input.data.toolName), blocked: true });
  }
  if (input.type === "session.end") {
    await finishRun(db, {
      id: run.id,
      outcome: typeof input.data.outcome === "string" ? input.data.outcome : "completed",
      reason: typeof input.data.reason === "string" ? input.data.reason : undefined,
      response: typeof input.data.response === "string" ? input.data.response : undefined,
    });
  } else if (signal?.aborted) {
    // The caller left while an approval held it; the run itself goes on.
    const current = await getRun(db, { id: run.id });
    if (current?.status === "waiting_approval") await setRunStatus(db, { id: run.id, status: "running" });
  }
  return { runId: run.id, seq, result };
}

type AgentRef = { id: string; name: string };

async function dispatchToHooks(
  handle: DbHandle,
  run: RunRow,
  agent: AgentRef,
  input: SessionEvent,
  seq: number,
  signal: AbortSignal | undefined,
): Promise<DispatchResult> {
  const { db } = handle;
  const hooks = await loadRunHooks(db, { agentId: agent.id });
  const bound = hooks.filter((h) => h.event === input.type);
  if (bound.length === 0) return { verdict: "allow", context: [], reminders: [], ledger: [] };

  const writes: Promise<unknown>[] = [];
  const track = (write: Promise<unknown>) => void writes.push(write);
  const workspaceDir = path.join(ensureWorkspacesDir(), run.id);
  const needs = new Set(bound.map((h) => h.action.type));
  if (needs.has("save_json") || needs.has("tool") || needs.has("command")) mkdirSync(workspaceDir, { recursive: true });
  const approvals = needs.has("approve") || needs.has("command") || needs.has("webhook") || needs.has("code")
    ? createDbApprovalPort({
        db,
        waiter: await processApprovalWaiter(handle),
        holdMs: HOLD_FOR_APPROVAL_MS,
        // The bridge holds the caller's request instead of parking: nothing to resume later.
        park: () => {},
        emit: (type, data) => track(appendRunEvents(db, { runId: run.id, events: [{ type, data }] })),
      })
    : undefined;
  const tools = needs.has("tool")
    ? createToolRegistry({
        workspaceDir,
        memory: { read: (name) => readMemoryNote(db, { name }), append: (name, text) => appendMemoryNote(db, { name, text }) },
        allowPrivateNetwork: process.env.HOOKPLANE_ALLOW_PRIVATE_NETWORK === "1",
      })
    : undefined;
  const runtime = createRunHookRuntime({ db, approvals, tools, eventSeq: () => seq, track });
  const event: HookEvent = {
    type: input.type as EventName,
    runId: run.id,
    agentId: agent.id,
    agentName: agent.name,
    sessionId: input.sessionId,
    ts: Date.now(),
    data: input.data,
    workspaceDir,
    triggerType: input.source,
  };
  // session.end hooks run even when the caller is gone: an audit trail that skips endings is none.
  const result = await runtime.dispatch(hooks, event, input.type === "session.end" ? {} : { signal });
  await Promise.all(writes);
  return result;
}

async function endSession(handle: DbHandle, run: RunRow, agent: AgentRef, end: { outcome: string; reason: string }, input: SessionEvent) {
  const event: SessionEvent = { ...input, type: "session.end", data: { outcome: end.outcome, reason: end.reason } };
  const seq = await appendRunEvents(handle.db, { runId: run.id, events: [{ type: "session.end", data: event.data }] });
  await dispatchToHooks(handle, run, agent, event, seq, undefined);
  await finishRun(handle.db, { id: run.id, outcome: end.outcome, reason: end.reason });
}

/**
 * Ends outside sessions that went quiet (Claude Code closed without SessionEnd): each gets its
 * `session.end` with outcome `timeout`, hooks included, so no run stays "running" forever.
 */
export async function expireIdleSessions(handle: DbHandle, idleMs: number): Promise<number> {
  let ended = 0;
  for (const run of await listIdleExternalRuns(handle.db, { idleMs })) {
    const agent = await getAgent(handle.db, { ref: run.agentId });
    if (!agent) continue;
    const minutes = Math.round(idleMs / 60_000);
    await endSession(
      handle,
      run,
      { id: agent.id, name: agent.name },
      { outcome: "timeout", reason: `no event from the session for ${minutes} min` },
      { agent: agent.name, sessionId: run.externalSessionId!, source: run.source, type: "session.end", data: {}, title: run.prompt },
    );
    ended++;
  }
  return ended;
}
