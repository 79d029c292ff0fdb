/**
 * The app's side of notices (the core's NoticePort) and the one reaction to an approval's
 * settlement that changes the chat messages which asked for it.
 *
 * Posting: a `slack` or `discord` hook on approval.requested gets the approval's decision links
 * from here and hands back what it posted (channel and ts, or channel and message id).
 *
 * Settling: every process (web and workers: each starts the run queue) listens on the approvals
 * channel, which settleApproval, the timeout sweeper and finishRun's abandoning all NOTIFY. So the
 * reaction does not depend on which process holds the run (a parked run resumed by another worker,
 * a bridged session's request in the web process, a run that ended and abandoned its question,
 * a decision made by link in a process that never saw the run). Whichever process gets there
 * first claims each message row in one UPDATE (only once the approval is settled), so a message
 * is changed once however many processes react; a failed update gives its claim back. A message
 * recorded after its approval was already settled (a decision faster than the post) is updated
 * by `posted` itself.
 */
import type { Db, DbHandle } from "@/db/client";
import { getApprovalInAnyProject, type ApprovalRow } from "@/db/queries/approvals";
import { claimUnsettledNotices, insertApprovalNotice, listApproverCandidates, releaseNoticeClaim, type ApprovalNoticeRow } from "@/db/queries/approval-notices";
import type { ApproverGroups } from "@/db/schema";
import { listAllSecretNames } from "@/db/queries/secrets";
import { HookHttpError, safeFetch, type SafeFetchPolicy } from "@/lib/core/hooks/http-client";
import { noticeHeadline, runLink } from "@/lib/core/hooks/notice-text";
import type { ApprovalNoticeInfo, DecisionLinkSet, NoticePort } from "@/lib/core/hooks/ports";
import { createRedactor } from "@/lib/core/hooks/redact";
import { noticeFetchPolicy } from "@/lib/core/hooks/runtime";
import { serverOutboundConfig } from "@/lib/platform/security/server-outbound";
import { getConfig, type EnvSecret } from "@/lib/platform/config/config";
import { sendOutbound } from "@/lib/core/outbound/outbound-request";
import { storeSecretPort } from "@/lib/features/secrets/secret-port";
import { readSecret } from "@/lib/features/secrets/secret-store";
import { getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { logger } from "@/lib/platform/logger";
import { settledEvent } from "./approval-settled";
import { listenForApprovalChanges } from "./approval-waiter";
import { hasApprovers, namesPerson } from "./approvers";
import { botToken, callSlackApi } from "./bot-token-calls";
import { inputEditCheck } from "./input-edit-support";
import { decisionLinkUrl, linkExpiry, mintDecisionToken, toolInputHash, type LinkDecision } from "./decision-links";
import { reachConfig, type ReachConfig } from "./reach-config";
import { slackButtonValue } from "./slack-button-value";
import { hookEvent } from "@/lib/core/hooks/event";

/** How long after a settlement its messages are updated (the resumed run goes first). */
const UPDATE_DELAY_MS = 250;
/** How long the masker keeps the store's values before reading them again. */
const MASK_TTL_MS = 10_000;

/** The approval in the dashboard's inbox. */
export function approvalLink(publicUrl: string, approvalId: string): string {
  return `${publicUrl}/approvals#approval-${approvalId}`;
}

/**
 * Every secret value this server knows (the store's and `HOOKPLANE_SECRET_*`), as one redactor: a
 * tool input or output that contains one never leaves in a notice.
 */
export async function secretMasker(db: Db, envSecrets: ReadonlyMap<string, EnvSecret> = getConfig().envSecrets): Promise<(text: string) => string> {
  const values: string[] = [];
  // Every project's values: a notice never carries any stored secret, whichever project set it.
  for (const { projectId, name } of await listAllSecretNames(db)) {
    try {
      const secret = await readSecret(db, getSecretBox, { projectId, name });
      if (secret) values.push(secret.value);
    } catch (error) {
      logger.warn({ err: error, name }, "a secret could not be read to mask it from notices");
    }
  }
  for (const secret of envSecrets.values()) values.push(secret.value);
  return createRedactor(values);
}

/**
 * The people an approval's notices go to: those named, and those with a named role in the
 * approval's project (at most `limit`).
 */
export async function approverPeople(db: Db, projectId: string, groups: ApproverGroups, limit = 20): Promise<{ email: string; slackUserId?: string }[]> {
  const candidates = await listApproverCandidates(db, { projectId });
  const people: { email: string; slackUserId?: string }[] = [];
  const seen = new Set<string>();
  const add = (email: string, slackUserId?: string | null) => {
    if (seen.has(email) || people.length >= limit) return;
    seen.add(email);
    people.push({ email, ...(slackUserId && { slackUserId }) });
  };
  for (const entry of groups.users ?? []) {
    const matches = candidates.filter((c) => namesPerson(entry, c.email));
    // A named email with no account still decides by its link (the name is the permission).
    if (matches.length === 0 && entry.includes("@")) add(entry.toLowerCase());
    for (const c of matches) add(c.email, c.slackUserId);
  }
  for (const c of candidates) if (c.role && (groups.roles ?? []).includes(c.role)) add(c.email, c.slackUserId);
  return people;
}

/** What a link or button of `approval` sent to `recipient` names, but its decision. */
function linkClaims(approval: ApprovalRow, recipient: string) {
  return { approvalId: approval.id, runId: approval.runId, recipient, inputHash: toolInputHash(approval.toolInput), expiresAt: linkExpiry(approval) };
}

function linkSet(config: ReachConfig, approval: ApprovalRow, recipient: string, label: string): DecisionLinkSet {
  const base = linkClaims(approval, recipient);
  const link = (decision: LinkDecision) => ({
    url: decisionLinkUrl(config.publicUrl, mintDecisionToken({ ...base, decision })),
    // Never the link's token: a Slack button's value is visible to the whole channel.
    buttonValue: slackButtonValue({ ...base, decision }),
  });
  return { recipient, label, approve: link("approve"), deny: link("deny") };
}

/** What a notice about an approval carries: its dashboard link, links per recipient or approver, the approvers. */
export async function approvalNoticeInfo(
  db: Db,
  config: ReachConfig,
  approvalId: string,
  recipient: string,
  options: { perApprover: boolean; editButton?: boolean },
  mask: () => Promise<(text: string) => string> = () => secretMasker(db),
): Promise<ApprovalNoticeInfo | undefined> {
  // Called with the id of the run's own approval (the run engine's notice port).
  const approval = await getApprovalInAnyProject(db, { id: approvalId });
  if (!approval) return undefined;
  const editable = options.editButton === true && (await inputEditCheck(db, approval, await mask())).editable;
  const restricted = hasApprovers(approval.approvers);
  const people = restricted ? await approverPeople(db, approval.projectId, approval.approvers!) : [];
  const links =
    restricted && options.perApprover
      ? people.map((p) => linkSet(config, approval, `user:${p.email}`, p.email))
      : [linkSet(config, approval, recipient, recipient.slice(recipient.indexOf(":") + 1))];
  return {
    approvalUrl: approvalLink(config.publicUrl, approval.id),
    links,
    approvers: people.map((p) => ({ label: p.email, ...(p.slackUserId && { slackUserId: p.slackUserId }) })),
    restricted,
    ...(editable && { editButtonValue: slackButtonValue({ ...linkClaims(approval, recipient), decision: "approve" }, "edit") }),
  };
}

export function createNoticePort(db: Db, config: ReachConfig = reachConfig()): NoticePort {
  let masker: { at: number; mask: Promise<(text: string) => string> } | undefined;
  const cachedMasker = () => {
    if (!masker || Date.now() - masker.at > MASK_TTL_MS) {
      const mask = secretMasker(db);
      mask.catch(() => (masker = undefined));
      masker = { at: Date.now(), mask };
    }
    return masker.mask;
  };
  return {
    publicUrl: config.publicUrl,
    slackInteractive: config.slackSigningSecret !== undefined,
    masker: cachedMasker,
    approvalNotice: (approvalId, recipient, options) => approvalNoticeInfo(db, config, approvalId, recipient, options, cachedMasker),
    async posted(notice) {
      await insertApprovalNotice(db, {
        approvalId: notice.approvalId,
        service: notice.service,
        channel: notice.channel,
        messageId: notice.messageId,
        tokenSecret: notice.tokenSecret,
        hookKey: notice.hookId,
      });
      // Decided while the message was on its way: no NOTIFY will come for it any more.
      void updateSettledNotices(db, notice.approvalId);
    },
  };
}

/** The line a settled approval's message is changed to: approval.settled's own headline. */
function settledLine(approval: ApprovalRow & { agentName: string }): string {
  return noticeHeadline(hookEvent({ type: "approval.settled", runId: approval.runId, agentName: approval.agentName, ts: Date.now(), data: settledEvent(approval) }));
}

/** The request that changes one posted message to say how the approval ended. */
export function settledMessageUpdate(config: ReachConfig, notice: ApprovalNoticeRow, line: string, approval: ApprovalRow) {
  const runUrl = runLink(config.publicUrl, approval.runId);
  const approvalUrl = approvalLink(config.publicUrl, approval.id);
  if (notice.service === "slack") {
    return {
      url: `${config.slackBaseUrl}/chat.update`,
      method: "POST" as const,
      authorization: (token: string) => `Bearer ${token}`,
      body: {
        channel: notice.channel,
        ts: notice.messageId,
        text: line,
        blocks: [
          { type: "section", text: { type: "mrkdwn", text: line } },
          { type: "context", elements: [{ type: "mrkdwn", text: `<${approvalUrl}|Open the approval> · <${runUrl}|Open the run>` }] },
        ],
        attachments: [],
      },
    };
  }
  return {
    url: `${config.discordBaseUrl}/channels/${encodeURIComponent(notice.channel)}/messages/${encodeURIComponent(notice.messageId)}`,
    method: "PATCH" as const,
    authorization: (token: string) => `Bot ${token}`,
    body: { content: `${line}\nApproval: <${approvalUrl}>\nRun: <${runUrl}>`, components: [] },
  };
}

export interface SettlementDeps {
  config?: ReachConfig;
  http?: SafeFetchPolicy;
}

/** The guard notices go through: the admin's allow-list and the configured Slack and Discord hosts. */
export function noticeHttp(config: ReachConfig = reachConfig()): SafeFetchPolicy {
  return noticeFetchPolicy({
    outbound: serverOutboundConfig().policy,
    transport: sendOutbound,
    slackBaseUrl: config.slackBaseUrl,
    discordBaseUrl: config.discordBaseUrl,
    maxResponseBytes: 64 * 1024,
  });
}

/**
 * Changes every message posted about `approvalId` to say how it ended (approved by whom and how,
 * denied, timed out, abandoned), once. Nothing happens while it is pending. Never throws.
 */
export async function updateSettledNotices(db: Db, approvalId: string, deps: SettlementDeps = {}): Promise<void> {
  try {
    const claimed = await claimUnsettledNotices(db, { approvalId });
    if (claimed.length === 0) return;
    const approval = (await getApprovalInAnyProject(db, { id: approvalId }))!;
    const config = deps.config ?? reachConfig();
    const http = deps.http ?? noticeHttp(config);
    const mask = await secretMasker(db);
    const line = mask(settledLine(approval));
    const secrets = storeSecretPort(db, approval.projectId);
    for (const notice of claimed) {
      const failure = await sendUpdate(http, config, notice, line, approval, secrets);
      if (failure) {
        logger.warn({ approvalId, service: notice.service, channel: notice.channel, failure }, "could not update an approval's message");
        await releaseNoticeClaim(db, { id: notice.id });
      }
    }
  } catch (error) {
    logger.warn({ err: error, approvalId }, "updating an approval's messages failed");
  }
}

async function sendUpdate(
  http: SafeFetchPolicy,
  config: ReachConfig,
  notice: ApprovalNoticeRow,
  line: string,
  approval: ApprovalRow,
  secrets: ReturnType<typeof storeSecretPort>,
): Promise<string | undefined> {
  const request = settledMessageUpdate(config, notice, line, approval);
  const found = await botToken(secrets, notice.tokenSecret, request.url);
  if ("failure" in found) return found.failure;
  if (notice.service === "slack") return (await callSlackApi(http, { url: request.url, token: found.token, body: request.body })).failure;
  try {
    const response = await safeFetch(http, {
      url: request.url,
      method: request.method,
      headers: { "content-type": "application/json; charset=utf-8", authorization: request.authorization(found.token) },
      body: JSON.stringify(request.body),
      timeoutMs: 10_000,
      signal: AbortSignal.timeout(15_000),
    });
    return response.status < 200 || response.status >= 300 ? `HTTP ${response.status}` : undefined;
  } catch (error) {
    return (error as HookHttpError).message;
  }
}

/**
 * The one reaction to settlements: listens on the approvals channel and updates the messages of
 * each approval that changed. Returns the function that stops listening.
 */
export async function watchSettledApprovals(handle: DbHandle, deps: SettlementDeps = {}): Promise<() => Promise<void>> {
  const running = new Set<Promise<void>>();
  const unlisten = await listenForApprovalChanges(handle, (approvalId) => {
    // A moment later: the run that was waiting resumes first (the decision's NOTIFY wakes it
    // too), and a message that says "approved" a quarter second later is no worse for it.
    const work = new Promise<void>((resolve) => setTimeout(resolve, UPDATE_DELAY_MS)).then(() => updateSettledNotices(handle.db, approvalId, deps));
    running.add(work);
    void work.finally(() => running.delete(work));
  });
  return async () => {
    await unlisten();
    // Updates in flight may finish, briefly: a shutdown does not wait on Slack.
    await Promise.race([Promise.allSettled([...running]), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  };
}
