/**
 * Starting, cancelling and deciding: the rules shared by the API, the server actions and the
 * dashboard. Each is thin over the query modules and the run queue.
 */
import { z } from "zod";
import type { Db } from "@/db/client";
import { getApprovalInAnyProject, settleApproval } from "@/db/queries/approvals";
import { audited } from "@/db/queries/audit";
import { requestCancel } from "@/db/queries/run-leases";
import { sealChain } from "@/db/queries/hash-chain";
import { deleteEventsOfRuns } from "@/db/queries/retention";
import { removeFinishedRun, UnsealedLedgerRows } from "@/db/queries/run-removal";
import { agentSpendSince, createRun, getRun, runToApi } from "@/db/queries/runs";
import { assertMaySetCodeHooks, findAgentOr404 } from "@/lib/features/agents/agent-service";
import { codeHookIdsSchema } from "@/lib/core/agent/agent-spec";
import { AppError } from "@/lib/platform/api/app-error";
import { uuidSchema } from "@/lib/core/safe-input";
import { roleAtLeast, type Principal } from "@/lib/platform/auth/roles";
import { getUserById } from "@/db/queries/users";
import { writeAllowRule } from "@/lib/features/approvals/always-allow";
import { decisionRefusal, type DeciderIdentity } from "@/lib/features/approvals/approvers";
import { getRunQueue } from "@/lib/features/runs/queue/run-queue-registry";
import { recordApprovalDecision } from "./run-metrics";

export const startRunSchema = z.object({
  agent: z.string().min(1, "name the agent (id or name)"),
  prompt: z.string().min(1, "give the run a prompt").max(100_000),
  /**
   * Standard Agents' prompt-level hook list: the operator code hooks for this run, overriding the
   * agent's `codeHooks`. Left out, the agent's apply; `[]` runs none.
   */
  codeHooks: codeHookIdsSchema.optional(),
});

export const decisionSchema = z.object({
  decision: z.enum(["approve", "deny"]),
  reason: z.string().max(2000).optional(),
  /** "Approve and always allow this": also write an allow rule for the same call, in shadow mode first. */
  alwaysAllow: z.boolean().optional(),
});

/**
 * Who decides, and how: the dashboard or the API (a principal), a decision link (whoever it was
 * sent to) or a Slack button (the Slack user's Hookplane account).
 */
export interface Decider {
  /** `decidedBy` and the audit actor: an email, `token:<name>`, `slack:#ops`, `user:alice@example.com`. */
  label: string;
  /** `decidedVia`: dashboard, api, link, slack. */
  via: string;
  /** What the approvers are checked against. */
  identity: DeciderIdentity;
  /** What an approval without approvers asks: an operator, or (a link) nothing more than the link. */
  withoutApprovers: "operator" | "link";
  /** Set when the decider may write hooks (approve and always allow). */
  principal?: Principal;
  /** Added to the decision's audit row (the Slack user, the link's recipient). */
  note?: Record<string, unknown>;
}

/** A signed-in person or an API token (a token's owner is who it names). */
export async function deciderOf(db: Db, principal: Principal, via: string): Promise<Decider> {
  let email = principal.kind === "user" ? principal.label : undefined;
  if (!email && principal.userId) email = (await getUserById(db, { id: principal.userId }))?.email;
  return { label: principal.label, via, identity: { email, role: principal.role }, withoutApprovers: "operator", principal };
}

function startOfUtcDay(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export async function startRun(
  db: Db,
  principal: Principal,
  input: z.infer<typeof startRunSchema> & { source?: string; scheduleId?: string },
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
    ...(input.codeHooks !== undefined && { codeHooks: input.codeHooks }),
  });
  await getRunQueue().enqueue(run.id);
  return run;
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

export async function decideApproval(db: Db, decider: Decider, id: string, input: z.infer<typeof decisionSchema>) {
  const found = uuidSchema.safeParse(id).success ? await getApprovalInAnyProject(db, { id }) : undefined;
  // A principal decides in its project only; a link or a Slack button names the approval itself.
  const existing = found && (!decider.principal || found.projectId === decider.principal.projectId) ? found : undefined;
  if (!existing) throw AppError.notFound(`Approval "${id}"`);
  const refusal = decisionRefusal(existing.approvers, decider.identity, decider.withoutApprovers);
  if (refusal) throw AppError.forbidden(refusal);
  if (input.alwaysAllow) {
    if (input.decision !== "approve") throw AppError.badRequest("alwaysAllow goes with approve");
    if (!decider.principal || !roleAtLeast(decider.principal.role, "operator")) {
      throw AppError.forbidden("Approve and always allow writes a hook: it needs an operator signed in to the dashboard or an operator's API token");
    }
  }
  const settled = await audited(
    db,
    { projectId: existing.projectId, actor: decider.label, action: `approval.${input.decision}`, entityType: "approval", entityId: id },
    async (tx) => {
      const settled = await settleApproval(tx, {
        id,
        status: input.decision === "approve" ? "approved" : "denied",
        decidedBy: decider.label,
        decidedVia: decider.via,
        reason: input.reason,
      });
      if (!settled) {
        const now = (await getApprovalInAnyProject(tx, { id })) ?? existing;
        if (now.status === "abandoned") {
          throw AppError.conflict(`This approval was abandoned and can no longer be decided: ${now.reason ?? "nobody waits for it any more"}`);
        }
        throw AppError.conflict(`This approval was already settled (${now.status}) by ${now.decidedBy ?? now.decidedVia}`);
      }
      const allowRule = input.alwaysAllow ? await writeAllowRule(tx, decider.principal!, existing) : undefined;
      return { settled, allowRule };
    },
    ({ settled, allowRule }) => ({
      after: { ...settled, ...(allowRule && { allowRule: { id: allowRule.id, key: allowRule.key, scope: allowRule.scope, version: allowRule.version, mode: "shadow" } }), ...decider.note },
    }),
  );
  recordApprovalDecision(settled.settled);
  // A parked run resumes now; a held one (and an outside session's held request: no worker runs
  // those) is woken by the NOTIFY of settleApproval.
  const run = await getRun(db, { projectId: existing.projectId, id: settled.settled.runId });
  if (!run?.externalSessionId) await getRunQueue().enqueue(settled.settled.runId);
  return {
    ...settled.settled,
    agentName: existing.agentName,
    agentId: existing.agentId,
    ...(settled.allowRule && { allowRule: { id: settled.allowRule.id, key: settled.allowRule.key, scope: settled.allowRule.scope, version: settled.allowRule.version } }),
  };
}
