/**
 * One run session: what a run needs to be recorded and governed, built in one place for the
 * worker's executor and the Claude Code bridge alike. It owns the run's recorder (events, ledger,
 * totals, checkpoint), its tools, its approval port and its hook runtime, and it is where
 * approval.requested / approval.settled are recorded and dispatched to their hooks.
 */
import type { Db } from "@/db/client";
import { appendMemoryNote, readMemoryNote } from "@/db/queries/memory-notes";
import type { RunRow } from "@/db/queries/runs";
import { hookEvent as typedHookEvent, type HookEvent } from "@/lib/core/hooks/event";
import type { PayloadFor } from "@/lib/core/hooks/event-payloads";
import type { EventName } from "@/lib/core/hooks/events";
import type { DispatchOptions, DispatchResult, RuntimeHook } from "@/lib/core/hooks/runtime-types";
import { createToolRegistry, withRetryTools } from "@/lib/features/tools/tool-registry";
import type { ToolRegistry } from "@/lib/core/agent/tool-types";
import { abandonApproval } from "@/lib/features/approvals/approval-endings";
import { createNoticePort } from "@/lib/features/approvals/approval-notices";
import { createDbApprovalPort, type ApprovalAnnouncement } from "@/lib/features/approvals/approval-port";
import { settledEvent } from "@/lib/features/approvals/approval-settled";
import type { ApprovalWaiter } from "@/lib/features/approvals/approval-waiter";
import { createRunHookRuntime, ledgerRows } from "@/lib/features/hooks/hook-runtime-factory";
import { traceExport } from "@/lib/platform/telemetry/trace-export";
import { createRunEventWriter, type RunEventWriter } from "./run-event-writer";
import { loadAgentHooks, loadRunHooks } from "./run-hooks";
import { hooksOnAgentMachine, hooksRunByServerForBridge } from "@/lib/core/hooks/runs-on";
import { chainUsesWorkspace } from "@/lib/core/hooks/workspace-use";
import { createRunTraceRecorder, type RunTraceRecorder } from "./telemetry/run-trace-recorder";

/** What a run session reads of its run's row (a bridged hook call selects just these: db/queries/external-runs.ts). */
export type SessionRun = Pick<
  RunRow,
  | "id"
  | "projectId"
  | "scheduleId"
  | "source"
  | "externalSessionId"
  | "prompt"
  | "inputTokens"
  | "outputTokens"
  | "cachedTokens"
  | "costUsd"
  | "lastSeq"
  | "toolsUsed"
  | "blocked"
  | "createdAt"
  | "startedAt"
  | "actorUserId"
  | "actorLabel"
>;

export interface RunSessionParams {
  db: Db;
  run: SessionRun;
  agent: { id: string; name: string; model?: string; retryTools?: string[] };
  /** `worker`: this process holds the run's lease; `bridge`: one HTTP request of an outside session. */
  mode: "worker" | "bridge";
  waiter: ApprovalWaiter;
  /** How long a caller waits for a person in memory: a worker then suspends the run; the bridge then abandons. */
  holdMs: number;
  workspaceDir: string;
  /**
   * Makes workspaceDir when it may not exist yet (a bridged session): called before the tools are
   * built and before a chain that may use the folder runs (workspace-use.ts), not on every call.
   */
  ensureWorkspace?: () => void;
  /** Fields every hook event of this run carries besides ids and data. */
  eventFields?: Pick<HookEvent, "sessionId" | "scheduleId" | "triggerType" | "actor">;
  /** Template variables of the entry point; session.end adds the response. */
  vars?: Record<string, string>;
  /** The agent's metadata file as last read (herdctl), for hooks' `when`. */
  metadata?: () => Record<string, unknown> | undefined;
  /**
   * The fingerprint of the agent's chain, read with the run (a bridged session's run has no
   * schedule): the chain then comes from this process's cache while the fingerprint holds (run-hooks.ts).
   */
  hooksFingerprint?: string;
}

export interface DispatchRequest {
  type: EventName;
  data: Record<string, unknown>;
  /** In a flow, the stage agent of the event: its hooks apply too, and the event is its. */
  agent?: { id: string; name: string };
  /** The recorded event's seq (the ledger rows point at it). */
  seq?: number;
}

export type DispatchControl = Pick<DispatchOptions, "signal" | "resume" | "abandon" | "beforeSideEffect" | "interrupted"> & {
  /** Only hooks whose action is one of these run (Claude Code's PermissionRequest asks only `approve` hooks). */
  onlyActions?: readonly string[];
};

export interface RunSession {
  readonly runId: string;
  readonly writer: RunEventWriter;
  readonly tools: ToolRegistry;
  readonly hooks: RuntimeHook[];
  /** A bridged session's hooks that run on the developer's machine (runs-on.ts): their outcomes are reported, not run here. */
  readonly agentMachineHooks: RuntimeHook[];
  /** The run's spans, when traces are exported (OTEL_EXPORTER_OTLP_ENDPOINT). */
  readonly trace?: RunTraceRecorder;
  dispatch(request: DispatchRequest, control?: DispatchControl): Promise<DispatchResult>;
}

export async function openRunSession(params: RunSessionParams): Promise<RunSession> {
  const { db, run, agent } = params;
  const exporter = traceExport();
  const trace = exporter
    ? createRunTraceRecorder(
        db,
        {
          runId: run.id,
          agent: { id: agent.id, name: agent.name, model: agent.model },
          source: run.source,
          externalSessionId: run.externalSessionId,
          ...(run.actorLabel && { actor: { userId: run.actorUserId, label: run.actorLabel } }),
          captureContent: exporter.captureContent,
        },
        exporter,
        { fromStart: params.mode === "worker" && run.lastSeq === 0, run },
      )
    : undefined;
  const writer = createRunEventWriter(db, {
    runId: run.id,
    mode: params.mode === "worker" ? "owner" : "shared",
    lastSeq: run.lastSeq,
    totals: { inputTokens: run.inputTokens, outputTokens: run.outputTokens, cachedTokens: run.cachedTokens, costUsd: run.costUsd },
    toolsUsed: run.toolsUsed,
    blocked: run.blocked,
    startedAt: run.startedAt ?? run.createdAt,
    observer: trace?.observe,
  });
  const loaded =
    params.hooksFingerprint !== undefined && !run.scheduleId
      ? await loadAgentHooks(db, { projectId: run.projectId, agentId: agent.id, fingerprint: params.hooksFingerprint })
      : await loadRunHooks(db, { projectId: run.projectId, agentId: agent.id, scheduleId: run.scheduleId });
  // A bridged agent runs on a developer's machine: the command hooks that run there are not run here.
  const hooks = params.mode === "bridge" ? hooksRunByServerForBridge(loaded) : loaded;
  // A flow's stage agents bring their own hooks: global, the flow's, the stage agent's, the schedule's.
  const stageHooks = new Map<string, Promise<RuntimeHook[]>>();
  const hooksFor = (stage: DispatchRequest["agent"]): RuntimeHook[] | Promise<RuntimeHook[]> => {
    if (!stage || stage.id === agent.id) return hooks;
    let loaded = stageHooks.get(stage.id);
    if (!loaded) {
      loaded = loadRunHooks(db, { projectId: run.projectId, agentId: agent.id, stageAgentId: stage.id, scheduleId: run.scheduleId });
      loaded.catch(() => stageHooks.delete(stage.id));
      stageHooks.set(stage.id, loaded);
    }
    return loaded;
  };
  // Built when a hook or the loop first uses a tool: most bridged calls (one session a call) never do.
  let registry: ToolRegistry | undefined;
  const toolsNow = () => {
    if (!registry) params.ensureWorkspace?.();
    return (registry ??= withRetryTools(
      createToolRegistry({
        workspaceDir: params.workspaceDir,
        // The run's project's notes: another project's runs never read them.
        memory: {
          read: (name) => readMemoryNote(db, { projectId: run.projectId, name }),
          append: (name, text) => appendMemoryNote(db, { projectId: run.projectId, name, text }),
        },
      }),
      agent.retryTools,
    ));
  };
  const tools: ToolRegistry = {
    list: () => toolsNow().list(),
    call: (name, input, signal, options) => toolsNow().call(name, input, signal, options),
    retrySafe: (name, input) => toolsNow().retrySafe(name, input),
  };

  /** approval.* events: recorded, then their hooks run (they cannot block, and nobody waits on them). */
  const announce = async <T extends ApprovalAnnouncement>(type: T, data: PayloadFor<T>) => {
    const seq = await writer.record(type, data);
    await dispatch({ type, data, seq });
  };

  const approvals = createDbApprovalPort({
    db,
    waiter: params.waiter,
    holdMs: params.holdMs,
    whenCallerLeaves: params.mode === "worker" ? "suspend" : "abandon",
    announce,
  });
  const runtime = createRunHookRuntime({
    db,
    projectId: run.projectId,
    approvals,
    notices: createNoticePort(db),
    tools,
    ledger: (entries, event) => writer.ledger(ledgerRows(entries, event, event.seq, run.projectId)),
  });

  const hookEvent = (request: DispatchRequest): HookEvent => {
    const vars =
      request.type === "session.end" && typeof request.data.response === "string"
        ? { ...(params.vars ?? {}), response: request.data.response }
        : params.vars;
    return typedHookEvent({
      type: request.type,
      runId: run.id,
      agentId: request.agent?.id ?? agent.id,
      agentName: request.agent?.name ?? agent.name,
      ...(request.agent && request.agent.id !== agent.id && { flow: { id: agent.id, name: agent.name } }),
      ts: Date.now(),
      seq: request.seq,
      data: request.data,
      metadata: params.metadata?.() ?? (request.data.metadata as Record<string, unknown> | undefined),
      workspaceDir: params.workspaceDir,
      ...params.eventFields,
      ...(vars && { vars }),
    });
  };

  async function dispatch(request: DispatchRequest, control: DispatchControl = {}): Promise<DispatchResult> {
    const only = control.onlyActions;
    const all = await hooksFor(request.agent);
    const chosen = only ? all.filter((h) => only.includes(h.action.type)) : all;
    if (params.ensureWorkspace && chainUsesWorkspace(chosen)) params.ensureWorkspace();
    const result = await runtime.dispatch(chosen, hookEvent(request), control);
    const abandoned = result.suspended?.abandoned;
    if (control.abandon !== undefined && abandoned !== undefined && result.suspended) {
      // The run ends while a person was asked: the question is withdrawn now, and said so.
      const ending = await abandonApproval(db, result.suspended.approvalId, abandoned).catch(() => undefined);
      // Already decided a moment before (the run ended first): the decision stands as it was.
      if (ending?.ended) await announce("approval.settled", settledEvent(ending.row));
    }
    // Everything this event's hooks decided is queued now: its span may close.
    if (request.seq !== undefined) writer.dispatched(request.seq);
    return result;
  }

  return { runId: run.id, writer, tools, hooks, agentMachineHooks: params.mode === "bridge" ? hooksOnAgentMachine(loaded) : [], trace, dispatch };
}
