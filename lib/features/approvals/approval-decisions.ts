/**
 * Deciding an approval, by whoever may: the dashboard and the API (a principal), a decision link,
 * a Slack button. The one place a person's answer is checked (approvers, own governance, edits,
 * always allow), settled with its audit row, counted, and handed to the run parked on it.
 */
import type { Db } from "@/db/client";
import { getApprovalInAnyProject, settleApproval } from "@/db/queries/approvals";
import { audited } from "@/db/queries/audit";
import { getRun } from "@/db/queries/runs";
import { getUserByEmail, getUserById } from "@/db/queries/users";
import { canonicalInput } from "@/lib/core/hooks/executors/allow";
import { uuidSchema } from "@/lib/core/safe-input";
import { AppError } from "@/lib/platform/api/app-error";
import { assertNotOwnGovernance } from "@/lib/platform/auth/own-governance";
import { roleAtLeast, type Principal } from "@/lib/platform/auth/roles";
import { getMetrics } from "@/lib/platform/metrics/metrics-registry";
import { writeAllowRule } from "./always-allow";
import { decisionRefusal, type DeciderIdentity } from "./approvers";
import { wakeParkedRun } from "./parked-run-waker";
import type { DecisionRequest } from "./schema";

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

/**
 * The input an approver approves instead of the one asked, if they edited it: only on a tool
 * call's approval, only by an operator or admin (a viewer named as approver may say yes or no,
 * not rewrite the call). The same input sent back is no edit.
 */
function editedInput(
  approval: { toolName: string | null; toolInput: unknown },
  decider: Decider,
  input: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (input === undefined) return undefined;
  if (!decider.identity.role || !roleAtLeast(decider.identity.role, "operator")) {
    throw AppError.forbidden(`Editing the input before approving needs an operator or admin; ${decider.label} may approve or deny it as asked`);
  }
  if (!approval.toolName) throw AppError.badRequest("input: this approval is not about a tool call, there is no input to edit");
  return canonicalInput(input) === canonicalInput(approval.toolInput) ? undefined : input;
}

/** A signed-in person or an API token (a token's owner is who it names). */
export async function deciderOf(db: Db, principal: Principal, via: string): Promise<Decider> {
  let email = principal.kind === "user" ? principal.label : undefined;
  if (!email && principal.userId) email = (await getUserById(db, { id: principal.userId }))?.email;
  return { label: principal.label, via, identity: { email, role: principal.role }, withoutApprovers: "operator", principal };
}


export async function decideApproval(db: Db, decider: Decider, id: string, input: DecisionRequest) {
  const found = uuidSchema.safeParse(id).success ? await getApprovalInAnyProject(db, { id }) : undefined;
  // A principal decides in its project only; a link or a Slack button names the approval itself.
  const existing = found && (!decider.principal || found.projectId === decider.principal.projectId) ? found : undefined;
  if (!existing) throw AppError.notFound(`Approval "${id}"`);
  // Nobody decides what their own coding agent asks (whatever their role), unless granted.
  const own = [{ kind: "approval" as const, id, runActorKey: existing.runActorKey }];
  if (decider.principal) await assertNotOwnGovernance(db, decider.principal, own);
  else if (decider.identity.email && existing.runActorUserId) {
    // A Slack click or a decision link names a person: the same rule holds for them.
    const person = await getUserByEmail(db, { email: decider.identity.email });
    if (person?.id === existing.runActorUserId) {
      const asPrincipal: Principal = { kind: "user", id: person.id, userId: person.id, label: decider.label, role: decider.identity.role ?? "viewer", projectId: existing.projectId, projectSlug: "", instanceAdmin: false };
      await assertNotOwnGovernance(db, asPrincipal, own);
    }
  }
  const refusal = decisionRefusal(existing.approvers, decider.identity, decider.withoutApprovers);
  if (refusal) throw AppError.forbidden(refusal);
  const approvedInput = editedInput(existing, decider, input.input);
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
        ...(approvedInput && { approvedInput }),
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
  // A parked run resumes now, through the queue runs installed; a held one (and an outside
  // session's held request: no worker runs those) is woken by the NOTIFY of settleApproval.
  const run = await getRun(db, { projectId: existing.projectId, id: settled.settled.runId });
  if (!run?.externalSessionId) await wakeParkedRun(settled.settled.runId);
  return {
    ...settled.settled,
    agentName: existing.agentName,
    agentId: existing.agentId,
    ...(settled.allowRule && { allowRule: { id: settled.allowRule.id, key: settled.allowRule.key, scope: settled.allowRule.scope, version: settled.allowRule.version } }),
  };
}

/** A person's decision on an approval: how long it waited for them. */
function recordApprovalDecision(approval: { status: string; requestedAt: Date; decidedAt: Date | null }): void {
  if (!approval.decidedAt) return;
  getMetrics().approvalDecision.observe({ decision: approval.status }, Math.max(0, approval.decidedAt.getTime() - approval.requestedAt.getTime()) / 1000);
}
