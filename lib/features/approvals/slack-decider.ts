/**
 * Who a Slack interaction decides as, and whether they may: one path of checks for a button click
 * (Approve, Deny, "Edit & approve") and for the editor's submission, which may come minutes after
 * the click and so is checked again from the start (slack-interactions.ts, slack-edit-modal.ts).
 *
 * In order, after Slack's signature and the replay check (slack-interactions.ts):
 * 1. The value is a button value of ours for this purpose (slack-button-value.ts: signed under its
 *    own key, so it is not a decision link and opens no page) for this approval, run and tool input,
 *    of the button's own decision, not expired, the approval still pending.
 * 2. The Slack user is a Hookplane user: an admin sets each person's Slack member id (`U…`) in
 *    Settings → Users, and the interaction decides as that user. Chosen over looking the email up
 *    with users.info: no extra call (and no users:read.email scope) on the path that resumes the
 *    run, and a Slack workspace's emails need not be Hookplane's.
 * 3. The user is a member of the approval's project (instance admins are admin in every project).
 * 4. For an edit, before anything opens: among the approval's approvers (an operator when it names
 *    none), and an operator or admin, who alone may rewrite a call. A plain Approve or Deny leaves
 *    the approvers to decideApproval, which checks them for every way of deciding.
 */
import type { Db } from "@/db/client";
import type { Role } from "@/db/schema";
import { getUserBySlackId } from "@/db/queries/approval-notices";
import { getMemberRole } from "@/db/queries/projects";
import { safeFetch, type SafeFetchPolicy } from "@/lib/core/hooks/http-client";
import type { Decider } from "./approval-decisions";
import { roleAtLeast } from "@/lib/platform/auth/roles";
import { logger } from "@/lib/platform/logger";
import { decisionRefusal } from "./approvers";
import type { LinkDecision } from "./decision-links";
import { approvalForClaims } from "./decision-page";
import type { ReachConfig } from "./reach-config";
import { readSlackButtonValue, type SlackButtonPurpose } from "./slack-button-value";
import type { SlackPayload } from "./schema";

/** What handling one interaction needs: the settings, the guard Slack calls go through, and now. */
export interface SlackContext {
  config: ReachConfig;
  http: SafeFetchPolicy;
  now: number;
}

/** Where the interaction came from: the approval message's channel and ts, for the audit row. */
export interface SlackWhere {
  channel?: string;
  messageTs?: string;
}

type Approval = Extract<Awaited<ReturnType<typeof approvalForClaims>>, { approval: unknown }>["approval"];

export type SlackDeciderCheck = { ok: true; approval: Approval; decider: Decider; email: string; role: Role } | { ok: false; message: string };

export async function checkSlackDecider(
  db: Db,
  params: { value: string; purpose: SlackButtonPurpose; decision: LinkDecision; user: SlackPayload["user"]; where: SlackWhere; now: number },
): Promise<SlackDeciderCheck> {
  const refuse = (message: string): SlackDeciderCheck => ({ ok: false, message });
  const reading = readSlackButtonValue(params.value, params.purpose);
  if (!reading.ok || reading.claims.decision !== params.decision) return refuse("This button is not one Hookplane made; nothing was decided.");
  const found = await approvalForClaims(db, reading.claims, params.now);
  if ("refusal" in found) {
    const state = found.refusal;
    return refuse(state.kind === "refused" ? `${state.title}. ${state.message}` : "Nothing was decided.");
  }
  const { approval } = found;
  const user = await getUserBySlackId(db, { slackUserId: params.user.id });
  if (!user || user.disabled) {
    return refuse(
      `Your Slack account (${params.user.id}) is not linked to a Hookplane user, so nothing was decided. An admin sets your Slack member id in Hookplane's Settings → Users; or decide in the dashboard.`,
    );
  }
  // The clicker acts in the approval's project: their role there (an instance admin is admin in
  // every project); someone who is not a member decides nothing, approvers or not.
  const role = user.instanceAdmin ? "admin" : await getMemberRole(db, { projectId: approval.projectId, userId: user.id });
  if (!role) return refuse(`You (${user.email}) are not a member of the project this approval belongs to, so nothing was decided.`);
  if (params.purpose === "edit") {
    // Refused before the editor opens: nobody types an edit only to be told it was never theirs.
    const refusal = decisionRefusal(approval.approvers, { email: user.email, role }, "operator");
    if (refusal) return refuse(`${refusal}. Nothing was decided.`);
    if (!roleAtLeast(role, "operator")) {
      return refuse(`Editing the input before approving needs an operator or admin; you (${user.email}, ${role}) may approve or deny it as asked. Nothing was decided.`);
    }
  }
  const decider: Decider = {
    label: user.email,
    via: "slack",
    identity: { email: user.email, role },
    withoutApprovers: "operator",
    note: { slack: { userId: params.user.id, username: params.user.username ?? params.user.name, channel: params.where.channel, messageTs: params.where.messageTs } },
  };
  return { ok: true, approval, decider, email: user.email, role };
}

/** Tells the clicker alone, through the payload's response_url (the message itself stays). */
export async function tellClicker(http: SafeFetchPolicy, payload: SlackPayload, text: string): Promise<void> {
  if (!payload.response_url) return;
  try {
    await safeFetch(http, {
      url: payload.response_url,
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ response_type: "ephemeral", replace_original: false, text }),
      timeoutMs: 5_000,
      signal: AbortSignal.timeout(6_000),
    });
  } catch (failure) {
    logger.warn({ err: failure }, "could not tell a Slack user why their click decided nothing");
  }
}
