/**
 * Executes one run on this worker: wires the agent loop to the hook runtime, the tool registry,
 * the price table and the run's event stream, checkpoints after every step, and finishes the run
 * row. A LoopInterrupted (parked on an approval, or the worker shutting down) leaves the run to be
 * resumed from its checkpoint; every other exit ends it with session.end fired exactly once.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Db } from "@/db/client";
import { agentToSpec, getAgent, getAgentByName } from "@/db/queries/agents";
import { appendMemoryNote, readMemoryNote } from "@/db/queries/memory-notes";
import { listPrices } from "@/db/queries/prices";
import { recordRunFailure } from "@/db/queries/run-leases";
import { appendRunEvents } from "@/db/queries/run-events";
import { finishRun, getRun, saveRunCheckpoint, setRunStatus } from "@/db/queries/runs";
import { recordScheduleResponse } from "@/db/queries/schedules";
import type { AgentWithId } from "@/lib/agent/loop-ports";
import { LoopInterrupted, runAgentSession, runFlow } from "@/lib/agent/loop";
import type { LoopState } from "@/lib/agent/loop-state";
import { createProvider } from "@/lib/agent/providers/create-provider";
import { costOfUsage, pickPrice } from "@/lib/costs/price-table";
import type { HookEvent } from "@/lib/hooks/event";
import { logger } from "@/lib/logger";
import { createToolRegistry } from "@/lib/tools/tool-registry";
import { createDbApprovalPort } from "./approval-port";
import type { ApprovalWaiter } from "./approval-waiter";
import { createCodeHookTransforms } from "./code-hook-transforms";
import { createRunHookRuntime } from "./hook-runtime-factory";
import { createRunEventWriter } from "./run-event-writer";
import { operatorCodeHooks } from "./operator-code-hooks";
import { readMetadataFile } from "./metadata-file";
import { loadRunHooks } from "./run-hooks";

export interface ExecutorDeps {
  db: Db;
  waiter: ApprovalWaiter;
  /** Where run workspaces live: `<workspacesDir>/<run id>`. */
  workspacesDir: string;
  approvalHoldMs: number;
}

export type ExecutionResult = { kind: "finished"; outcome: string } | { kind: "parked" } | { kind: "interrupted" } | { kind: "skipped" };

class ParkedForApproval extends LoopInterrupted {
  constructor() {
    super("parked until a person decides");
  }
}

/** `controller` is owned by the caller so cancel and shutdown can abort it. */
export async function executeRun(deps: ExecutorDeps, runId: string, controller: AbortController): Promise<ExecutionResult> {
  const { db } = deps;
  const run = await getRun(db, { id: runId });
  // An outside session (Claude Code through the bridge) has its loop elsewhere: nothing to execute.
  if (!run || run.status === "finished" || run.externalSessionId) return { kind: "skipped" };
  const agentRow = await getAgent(db, { ref: run.agentId });
  if (!agentRow) return { kind: "skipped" };
  const agent: AgentWithId = agentToSpec(agentRow);
  if (run.cancelRequested) controller.abort();

  await setRunStatus(db, { id: runId, status: "running" });
  const writer = createRunEventWriter(db, {
    runId,
    lastSeq: run.lastSeq,
    totals: { inputTokens: run.inputTokens, outputTokens: run.outputTokens, cachedTokens: run.cachedTokens, costUsd: run.costUsd },
    toolsUsed: run.toolsUsed,
    blocked: run.blocked,
  });
  const pendingWrites = new Set<Promise<unknown>>();
  const track = (write: Promise<unknown>) => {
    pendingWrites.add(write);
    void write.finally(() => pendingWrites.delete(write));
  };
  const settleWrites = async () => {
    await writer.flush();
    await Promise.all([...pendingWrites]);
  };

  const workspaceDir = path.join(deps.workspacesDir, runId);
  mkdirSync(workspaceDir, { recursive: true });
  const tools = createToolRegistry({
    workspaceDir,
    memory: {
      read: (name) => readMemoryNote(db, { name }),
      append: (name, text) => appendMemoryNote(db, { name, text }),
    },
    allowPrivateNetwork: process.env.HOOKPLANE_ALLOW_PRIVATE_NETWORK === "1",
  });
  const approvals = createDbApprovalPort({
    db,
    waiter: deps.waiter,
    holdMs: deps.approvalHoldMs,
    park: () => controller.abort(new ParkedForApproval()),
    emit: (type, data) => writer.emit(type, data),
  });
  let dispatchSeq: number | undefined;
  const runtime = createRunHookRuntime({ db, approvals, tools, eventSeq: () => dispatchSeq, track });
  const hooks = await loadRunHooks(db, { agentId: agent.id, scheduleId: run.scheduleId });
  const prices = await listPrices(db);
  // Standard Agents' transform hooks: the operator's defineHook modules the run (or else the agent) names.
  const transforms = await createCodeHookTransforms({
    registry: operatorCodeHooks(),
    runId,
    agent,
    runCodeHooks: run.codeHooks ?? undefined,
    emit: (type, data) => {
      writer.emit(type, data);
    },
    logger: {
      warn: (message, details) => logger.warn({ ...details, runId }, message),
      error: (message, details) => logger.error({ ...details, runId }, message),
    },
    reportMissing: !run.checkpoint,
  });
  let metadata: Record<string, unknown> | undefined;

  const dispatch = async (event: { type: HookEvent["type"]; data: Record<string, unknown> }) => {
    dispatchSeq = writer.lastSeq;
    // session.end and error must run their hooks even after a cancel (an audit trail that skips
    // aborted runs is not one), so they get no abort signal.
    const informational = event.type === "session.end" || event.type === "error";
    const result = await runtime.dispatch(
      hooks,
      {
        type: event.type,
        runId,
        agentId: agent.id,
        agentName: agent.name,
        ts: Date.now(),
        data: event.data,
        metadata: metadata ?? (event.data.metadata as Record<string, unknown> | undefined),
        workspaceDir,
        scheduleId: run.scheduleId ?? undefined,
        triggerType: run.source,
        vars:
          event.type === "session.end" && typeof event.data.response === "string"
            ? { ...(run.vars ?? {}), response: event.data.response }
            : (run.vars ?? undefined),
      },
      informational ? {} : { signal: controller.signal },
    );
    if (controller.signal.aborted && controller.signal.reason instanceof LoopInterrupted) throw controller.signal.reason;
    return result;
  };

  const options = {
    agent,
    runId,
    prompt: run.prompt,
    providerFor: (a: AgentWithId) => createProvider(a.model, { script: a.script }),
    tools,
    dispatch,
    emit: (type: string, data: Record<string, unknown>) => {
      writer.emit(type, data);
    },
    costOf: (model: string, usage: { inputTokens: number; outputTokens: number; cachedTokens: number }) =>
      costOfUsage(pickPrice(prices, model), usage),
    signal: controller.signal,
    vars: run.vars ?? undefined,
    // Tailored AI: on a scheduled run, before-run tool hook outputs are prepended to the prompt.
    prependSessionStartOutput: Boolean(run.scheduleId),
    checkpoint: {
      load: async () => (run.checkpoint as LoopState | null) ?? undefined,
      save: async (state: LoopState) => {
        await settleWrites();
        await saveRunCheckpoint(db, { id: runId, checkpoint: state });
      },
    },
    readMetadata: agent.metadataFile
      ? async () => {
          metadata = await readMetadataFile(workspaceDir, agent.metadataFile!);
          return metadata;
        }
      : undefined,
    resolveAgent: async (name: string) => {
      const row = await getAgentByName(db, { name });
      return row ? agentToSpec(row) : undefined;
    },
    transforms,
  };

  try {
    const result = agent.flow?.length ? await runFlow(options) : await runAgentSession(options);
    await settleWrites();
    await finishRun(db, {
      id: runId,
      outcome: result.outcome,
      reason: result.reason,
      response: result.response,
      totals: { ...writer.totals },
    });
    if (run.scheduleId) await recordScheduleResponse(db, { id: run.scheduleId, response: result.response ?? null });
    return { kind: "finished", outcome: result.outcome };
  } catch (error) {
    await settleWrites().catch(() => {});
    if (error instanceof ParkedForApproval) return { kind: "parked" };
    if (error instanceof LoopInterrupted) return { kind: "interrupted" };
    const failures = await recordRunFailure(db, { id: runId }).catch(() => 0);
    if (failures < MAX_RECORDING_FAILURES) {
      logger.error({ err: error, runId, failures }, "run could not be recorded; it will be resumed from its checkpoint");
      return { kind: "interrupted" };
    }
    // A run that fails the same way every time would be resumed forever: end it, saying why.
    const reason = `gave up after ${failures} attempts that could not be recorded: ${(error as Error)?.message ?? String(error)}`.slice(0, 2000);
    logger.error({ err: error, runId }, reason);
    await appendRunEvents(db, {
      runId,
      events: [
        { type: "error", data: { message: reason } },
        { type: "session.end", data: { outcome: "failed", reason, ...writer.totals } },
      ],
    }).catch(() => {});
    await finishRun(db, { id: runId, outcome: "failed", reason, totals: { ...writer.totals } }).catch(() => {});
    return { kind: "finished", outcome: "failed" };
  }
}

/** Executions in a row whose events or checkpoint could not be written before a run is failed. */
const MAX_RECORDING_FAILURES = 3;
