/**
 * Executes one run on this worker: opens the run session (recorder, tools, approvals, hooks),
 * wires the agent loop to it and to the price table, and finishes the run row. A run that waits
 * for a person comes back `suspended` (status waiting_approval, worker slot given back) and is
 * resumed from its checkpoint when the approval settles; a LoopInterrupted (shutdown, lost lease)
 * leaves it to be resumed elsewhere; every other exit ends it with session.end fired exactly once.
 */
import { mkdirSync, statSync } from "node:fs";
import path from "node:path";
import type { Db } from "@/db/client";
import { agentToSpec, getAgent, getAgentByName } from "@/db/queries/agents";
import { recordRunFailure } from "@/db/queries/run-leases";
import { appendRunEvents } from "@/db/queries/run-events";
import { finishRun, getRunInAnyProject, setRunStatus, type RunRow } from "@/db/queries/runs";
import { recordScheduleResponse } from "@/db/queries/schedules";
import type { AgentWithId, HookEffects, LifecycleEvent, RecordOptions } from "@/lib/core/agent/loop-ports";
import { LoopInterrupted, runAgentSession, runFlow } from "@/lib/core/agent/loop";
import { createProvider } from "@/lib/core/agent/providers/create-provider";
import { loadPriceBook } from "@/lib/features/costs/project-prices";
import type { SuspendPoint } from "@/lib/core/hooks/runtime-types";
import { getConfig } from "@/lib/platform/config/config";
import { logger } from "@/lib/platform/logger";
import type { ApprovalWaiter } from "@/lib/features/approvals/approval-waiter";
import { createCodeHookTransforms } from "./code-hook-transforms";
import { operatorCodeHooks } from "@/lib/features/hooks/operator-code-hooks";
import { readMetadataFile } from "./metadata-file";
import { createRunCheckpointStore } from "./run-checkpoint-store";
import { openRunSession } from "./run-session";
import { recordWrittenEvents } from "./run-metrics";

export interface ExecutorDeps {
  db: Db;
  waiter: ApprovalWaiter;
  /** Where run workspaces live: `<workspacesDir>/<run id>`. */
  workspacesDir: string;
  approvalHoldMs: number;
}

export type ExecutionResult =
  | { kind: "finished"; outcome: string }
  | { kind: "suspended"; approvalId: string }
  | { kind: "interrupted" }
  | { kind: "skipped" };

/**
 * `controller` is owned by the caller so cancel and shutdown can abort it. `claimed` is the run's
 * row as the claim that made this worker its owner returned it (read again when left out).
 */
export async function executeRun(deps: ExecutorDeps, runId: string, controller: AbortController, claimed?: RunRow): Promise<ExecutionResult> {
  const { db } = deps;
  // A worker runs every project's runs: the run's own project decides everything below.
  const run = claimed?.id === runId ? claimed : await getRunInAnyProject(db, { id: runId });
  // An outside session (Claude Code through the bridge) has its loop elsewhere: nothing to execute.
  if (!run || run.status === "finished" || run.externalSessionId) return { kind: "skipped" };
  const agentRow = await getAgent(db, { projectId: run.projectId, ref: run.agentId });
  if (!agentRow) return { kind: "skipped" };
  const agent: AgentWithId = agentToSpec(agentRow);
  if (run.cancelRequested) controller.abort();

  await setRunStatus(db, { id: runId, status: "running" });
  const workspaceDir = path.join(deps.workspacesDir, runId);
  makeWorkspace(workspaceDir);
  let metadata: Record<string, unknown> | undefined;
  const session = await openRunSession({
    db,
    run,
    agent,
    mode: "worker",
    waiter: deps.waiter,
    holdMs: deps.approvalHoldMs,
    workspaceDir,
    eventFields: { scheduleId: run.scheduleId ?? undefined, triggerType: run.source },
    vars: run.vars ?? undefined,
    metadata: () => metadata,
  });
  const { writer } = session;
  const prices = await loadPriceBook(db, run.projectId);
  const config = getConfig();
  const providerEnvironment = {
    OPENAI_API_KEY: config.OPENAI_API_KEY,
    OPENAI_BASE_URL: config.OPENAI_BASE_URL,
    ANTHROPIC_API_KEY: config.ANTHROPIC_API_KEY,
    ANTHROPIC_BASE_URL: config.ANTHROPIC_BASE_URL,
  };
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

  const dispatch = async (event: LifecycleEvent, resume?: { point: SuspendPoint; abandon?: string }, effects?: HookEffects) => {
    // session.end and error must run their hooks even after a cancel (an audit trail that skips
    // aborted runs is not one), and an abandoned wait is written whatever the signal says.
    const informational = event.type === "session.end" || event.type === "error" || resume?.abandon !== undefined;
    const result = await session.dispatch(event, {
      ...(informational ? {} : { signal: controller.signal }),
      ...(resume && { resume: resume.point, abandon: resume.abandon }),
      ...effects,
    });
    if (controller.signal.aborted && controller.signal.reason instanceof LoopInterrupted) throw controller.signal.reason;
    return result;
  };

  const options = {
    agent,
    runId,
    prompt: run.prompt,
    providerFor: (a: AgentWithId) => createProvider(a.model, { script: a.script, env: providerEnvironment }),
    tools: session.tools,
    dispatch,
    emit: (type: string, data: Record<string, unknown>, recorded?: RecordOptions) => writer.emit(type, data, recorded),
    costOf: (model: string, usage: { inputTokens: number; outputTokens: number; cachedTokens: number }) =>
      prices.costOf(model, usage),
    signal: controller.signal,
    vars: run.vars ?? undefined,
    // Tailored AI: on a scheduled run, before-run tool hook outputs are prepended to the prompt.
    prependSessionStartOutput: Boolean(run.scheduleId),
    checkpoint: createRunCheckpointStore(db, { runId, stored: run.checkpoint, writer }),
    readMetadata: agent.metadataFile
      ? async () => {
          metadata = await readMetadataFile(workspaceDir, agent.metadataFile!);
          return metadata;
        }
      : undefined,
    resolveAgent: async (name: string) => {
      const row = await getAgentByName(db, { projectId: run.projectId, name });
      return row ? agentToSpec(row) : undefined;
    },
    transforms,
  };

  try {
    const result = agent.flow?.length ? await runFlow(options) : await runAgentSession(options);
    await writer.flush();
    if (result.status === "suspended") {
      // Waiting is a state: the checkpoint says where, the approval says on what.
      await setRunStatus(db, { id: runId, status: "waiting_approval" });
      return { kind: "suspended", approvalId: result.waitingOn.approvalId };
    }
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
    await writer.flush().catch(() => {});
    if (error instanceof LoopInterrupted) return { kind: "interrupted" };
    const failures = await recordRunFailure(db, { id: runId }).catch(() => 0);
    if (failures < MAX_RECORDING_FAILURES) {
      logger.error({ err: error, runId, failures }, "run could not be recorded; it will be resumed from its checkpoint");
      // Back off before giving the run back, so a database that blinks has time to come back.
      await sleep(Math.min(RECORDING_BACKOFF_MS * 2 ** Math.max(0, failures - 1), 10_000), controller.signal);
      return { kind: "interrupted" };
    }
    // A run that fails the same way every time would be resumed forever: end it, saying why.
    const reason = `gave up after ${failures} attempts that could not be recorded: ${(error as Error)?.message ?? String(error)}`.slice(0, 2000);
    logger.error({ err: error, runId }, reason);
    const ending = [
      { type: "error", data: { message: reason } },
      { type: "session.end", data: { outcome: "failed", reason, ...writer.totals } },
    ];
    await appendRunEvents(db, { runId, events: ending })
      .then((lastSeq) => {
        recordWrittenEvents(ending, lastSeq, run.startedAt ?? run.createdAt);
        session.trace?.runEnded();
      })
      .catch(() => {});
    await finishRun(db, { id: runId, outcome: "failed", reason, totals: { ...writer.totals } }).catch(() => {});
    return { kind: "finished", outcome: "failed" };
  }
}

/**
 * Executions in a row whose events or checkpoint could not be written before a run is failed.
 * The count goes back to 0 with every step stored (appendRunRecords), so blips that heal over a
 * long run never add up.
 */
const MAX_RECORDING_FAILURES = 5;
const RECORDING_BACKOFF_MS = 500;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/**
 * The run's workspace folder, made once (a resumed run finds it). A plain mkdir first: the
 * workspaces folder exists, and Node's recursive mkdir costs about three times the CPU of one.
 */
function makeWorkspace(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST" && statSync(dir).isDirectory()) return;
    if (code !== "ENOENT") throw error;
    mkdirSync(dir, { recursive: true });
  }
}
