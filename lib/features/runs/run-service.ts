/**
 * Starting, re-running, cancelling and deleting runs: the rules shared by the API, the server
 * actions and the dashboard. Each is thin over the query modules and the run queue. Deciding an
 * approval is the approvals feature's (approvals/approval-decisions.ts).
 */
import type { Db } from "@/db/client";
import { audited } from "@/db/queries/audit";
import { requestCancel } from "@/db/queries/run-leases";
import { sealChain } from "@/db/queries/hash-chain";
import { deleteEventsOfRuns } from "@/db/queries/retention";
import { removeFinishedRun, UnsealedLedgerRows } from "@/db/queries/run-removal";
import { agentSpendSince, createRun, getRun, runToApi } from "@/db/queries/runs";
import { assertMaySetCodeHooks, findAgentOr404 } from "@/lib/features/agents/agent-service";
import { AppError } from "@/lib/platform/api/app-error";
import { uuidSchema } from "@/lib/core/safe-input";
import type { Principal } from "@/lib/platform/auth/roles";
import { getRunQueue } from "@/lib/features/runs/queue/run-queue-registry";
import type { StartRunRequest } from "./schema";

function startOfUtcDay(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export async function startRun(
  db: Db,
  principal: Principal,
  input: StartRunRequest & { source?: string; scheduleId?: string; vars?: Record<string, string>; parentRunId?: string },
) {
  const agent = await findAgentOr404(db, principal.projectId, input.agent);
  // The run's own list overrides the agent's: choosing it (even `[]`) is an admin's call, unless it is the agent's own list.
  if (input.codeHooks !== undefined) assertMaySetCodeHooks(principal, agent.codeHooks, input.codeHooks, "a run's");
  if (agent.dailyBudgetUsd !== null && agent.dailyBudgetUsd !== undefined) {
    const spent = await agentSpendSince(db, { agentId: agent.id, since: startOfUtcDay() });
    if (spent >= agent.dailyBudgetUsd) {
      throw new AppError("daily_budget_exceeded",
        `${agent.name} has spent $${spent.toFixed(4)} today, reaching its daily budget of $${agent.dailyBudgetUsd}; no new runs until 00:00 UTC`,
      );
    }
  }
  const run = await createRun(db, {
    projectId: agent.projectId,
    agentId: agent.id,
    prompt: input.prompt,
    source: input.source ?? (principal.kind === "token" ? "api" : "dashboard"),
    createdBy: principal.label,
    scheduleId: input.scheduleId,
    ...(input.vars && { vars: input.vars }),
    ...(input.parentRunId && { parentRunId: input.parentRunId }),
    ...(input.codeHooks !== undefined && { codeHooks: input.codeHooks }),
  });
  await getRunQueue().enqueue(run.id);
  return run;
}

/** Why a run cannot be re-run here, or undefined when it can. */
export function rerunRefusal(run: { externalSessionId: string | null; source: string }): string | undefined {
  if (run.externalSessionId !== null)
    return `A bridged ${run.source} session cannot be re-run from here: its prompt and tools live in that coding agent. Start the session again there.`;
  return undefined;
}

/**
 * A new run of the same agent with the same input: its prompt, template variables, schedule (whose
 * hooks it meets) and its own code hook list, which only an admin may set unless it is the agent's
 * own. Under the same rules as any start (daily budget). The new run names the one it re-ran.
 */
export async function rerunRun(db: Db, principal: Principal, id: string) {
  const original = await findRunOr404(db, principal.projectId, id);
  const refusal = rerunRefusal(original);
  if (refusal) throw AppError.conflict(refusal);
  return startRun(db, principal, {
    agent: original.agentId,
    prompt: original.prompt,
    source: "rerun",
    parentRunId: original.id,
    ...(original.scheduleId && { scheduleId: original.scheduleId }),
    ...(original.vars && { vars: original.vars }),
    ...(original.codeHooks && { codeHooks: original.codeHooks }),
  });
}

/** The project's run; another project's is a 404, as one that does not exist. */
export async function findRunOr404(db: Db, projectId: string, id: string) {
  const run = uuidSchema.safeParse(id).success ? await getRun(db, { projectId, id }) : undefined;
  if (!run) throw AppError.notFound(`Run "${id}"`);
  return run;
}

export async function cancelRun(db: Db, principal: Principal, id: string) {
  const run = await audited(db, { projectId: principal.projectId, actor: principal.label, action: "run.cancel", entityType: "run", entityId: id }, async (tx) => {
    const run = await findRunOr404(tx, principal.projectId, id);
    if (run.status === "finished" || !(await requestCancel(tx, { id }))) throw AppError.conflict(`Run already finished (${run.outcome})`);
    return run;
  });
  // An outside session (the Claude Code bridge) has no worker: its next event sees the flag.
  if (!run.externalSessionId) await getRunQueue().cancel(id);
  return runToApi({ ...run, cancelRequested: true });
}

/**
 * Deletes a finished run with everything it recorded, its hook ledger rows included (their places
 * in the chain kept as gaps: db/queries/run-removal.ts), and audits it: who, when, which run, what
 * went. A run still going is refused (409): cancel it first; a cancelled run finishes within a step.
 */
export async function deleteRunAudited(db: Db, principal: Principal, id: string) {
  const run = await findRunOr404(db, principal.projectId, id);
  const refuse = (status: string) =>
    AppError.conflict(`Run ${id} is ${status}: cancel it first (POST /api/v1/runs/${id}/cancel), then delete it once it has finished`);
  if (run.status !== "finished") throw refuse(run.status);
  // Events first, in short batches outside the audited transaction (a long run has many); then, in
  // one transaction, the run row with what is left, its ledger rows and the audit row.
  const events = await deleteEventsOfRuns(db, { runIds: [id] });
  for (let attempt = 1; ; attempt++) {
    await sealChain(db, { table: "hook_invocations" });
    try {
      const removed = await audited(
        db,
        { projectId: principal.projectId, actor: principal.label, action: "run.delete", entityType: "run", entityId: id },
        async (tx) => {
          const removed = await removeFinishedRun(tx, { projectId: principal.projectId, runId: id, events });
          if (removed) return removed;
          const now = await getRun(tx, { projectId: principal.projectId, id });
          throw now ? refuse(now.status) : AppError.notFound(`Run "${id}"`);
        },
        ({ run: gone, ...counts }) => ({
          before: {
            agentId: gone.agentId,
            agentName: run.agentName,
            source: gone.source,
            outcome: gone.outcome,
            createdAt: gone.createdAt,
            finishedAt: gone.finishedAt,
            costUsd: gone.costUsd,
          },
          after: { deleted: counts },
        }),
      );
      return removed;
    } catch (error) {
      // A ledger row appended since the seal (a late commit): seal again and retry.
      if (!(error instanceof UnsealedLedgerRows) || attempt >= 3) throw error;
    }
  }
}
