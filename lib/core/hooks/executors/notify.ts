/**
 * `slack` and `discord`: herdctl's one-way notifications. Title = agent name and run id; colour by
 * outcome (green completed, red failed, yellow timeout or cancelled); duration, event, metadata
 * fields and the truncated output. Base URLs come from the runtime options (operator
 * configuration, so their hosts pass the outbound guard even when private: tests use a local
 * server). The token secret must list the service's host among its hosts, or nothing is sent.
 * A failed run's notice carries its error text. Hooks imported from herdctl keep herdctl's own
 * message layout (herdctl-notice.ts): its titles, colours and fields.
 *
 * With the app's notice port, a notice leads with one line saying what happened, links to the run
 * (and, on approval.requested, the approval and its decision links: Slack buttons, Discord link
 * buttons), and every secret value of the store is masked from what it says. A posted message
 * about an approval is handed back to the port, which updates it when the approval settles.
 */
import { CHAT_SERVICES, sendNotice } from "../notice-delivery";
import { noticeHeadline, runLink } from "../notice-text";
import type { ApprovalNoticeInfo, NoticePort } from "../ports";
import { createRedactor } from "../redact";
import { secretsNotAllowedFor } from "../secret-placement";
import { herdctlDiscordBody, herdctlSlackBody } from "./herdctl-notice";
import type { DiscordAction, SlackAction } from "../spec";
import { isFailure, type ActionOutcome, type ActionRun, type CompiledAction } from "./types";

const OUTPUT_LIMIT = 1000;
const METADATA_FIELDS = 10;

type Tone = "success" | "failure" | "warning" | "neutral";
const SLACK_COLOURS: Record<Tone, string> = { success: "#2eb67d", failure: "#e01e5a", warning: "#ecb22e", neutral: "#4a5568" };
const DISCORD_COLOURS: Record<Tone, number> = { success: 0x2ecc71, failure: 0xe74c3c, warning: 0xf1c40f, neutral: 0x95a5a6 };

/** What both messages say, computed once from the event. */
export interface NotificationSummary {
  title: string;
  tone: Tone;
  fields: { name: string; value: string }[];
  output: string;
}

export function summarize(run: ActionRun): NotificationSummary {
  const { event } = run;
  const data = event.data;
  const outcome = typeof data.outcome === "string" ? data.outcome : event.type === "error" ? "failed" : undefined;
  const tone: Tone =
    outcome === "completed"
      ? "success"
      : outcome === "failed" || event.type === "error"
        ? "failure"
        : outcome === "timeout" || outcome === "cancelled"
          ? "warning"
          : "neutral";
  const fields = [{ name: "Event", value: outcome ? `${event.type} (${outcome})` : event.type }];
  if (typeof data.durationMs === "number") fields.push({ name: "Duration", value: formatDuration(data.durationMs) });
  if (typeof data.toolName === "string") fields.push({ name: "Tool", value: data.toolName });
  const error = errorText(event);
  if (error) fields.push({ name: "Error", value: truncate(error, 900) });
  for (const [key, value] of Object.entries(event.metadata ?? {}).slice(0, METADATA_FIELDS)) {
    fields.push({ name: key, value: truncate(typeof value === "string" ? value : JSON.stringify(value), 200) });
  }
  const raw = data.response ?? data.output ?? (error ? "" : data.message) ?? "";
  return {
    title: `${event.agentName} · run ${event.runId}`,
    tone,
    fields,
    output: truncate(typeof raw === "string" ? raw : JSON.stringify(raw), OUTPUT_LIMIT),
  };
}

/** What the body of one notice is built from: the summary and headline masked, the links as they are. */
export interface NoticeContent {
  summary: NotificationSummary;
  /** One line saying what happened ("Approval needed: agent ops-bot wants to run Bash `ls`"). */
  headline: string;
  /** The run in the dashboard, when the public URL is known. */
  runUrl?: string;
  /** On approval.requested: the approval in the dashboard and its decision links. */
  approval?: ApprovalNoticeInfo;
}

/** Where and how one service's notice goes: its URL, auth scheme and message body. */
interface NoticeShape {
  url(run: ActionRun): string;
  authorization(token: string): string;
  /** Who the notice goes to, as decision links name it (`slack:#ops`). */
  recipient: string;
  /** Links per approver (the message cannot tell who clicked) or one set for the recipient. */
  perApprover(port: NoticePort): boolean;
  body(content: NoticeContent, run: ActionRun): unknown;
  /** herdctl's own message for the same event. */
  herdctlBody(run: ActionRun): unknown;
  /** Slack answers 200 with `{ok: false}` when it refuses a message. */
  slackEnvelope: boolean;
  /** The posted message's channel and id, read from the service's answer. */
  postedMessage(answer: unknown): { channel: string; messageId: string } | undefined;
}

/** The approval an approval.requested event is about. */
function requestedApprovalId(run: ActionRun): string | undefined {
  const id = run.event.data.approvalId;
  return run.event.type === "approval.requested" && typeof id === "string" ? id : undefined;
}

/** The summary and headline with every secret value the store holds masked (tool input and output included). */
export async function noticeContent(run: ActionRun, mask: (text: string) => string): Promise<Omit<NoticeContent, "approval">> {
  const raw = summarize(run);
  const summary: NotificationSummary = {
    title: mask(raw.title),
    tone: raw.tone,
    output: mask(raw.output),
    fields: raw.fields.map((f) => ({ name: f.name, value: mask(f.value) })),
  };
  const port = run.options.notices;
  return { summary, headline: mask(noticeHeadline(run.event)), ...(port && { runUrl: runLink(port.publicUrl, run.event.runId) }) };
}

/** The masker of the notice port joined with the hook's own secrets. */
export async function noticeMasker(run: ActionRun, own: Iterable<string>): Promise<(text: string) => string> {
  const hookOwn = createRedactor(own);
  const store = run.options.notices ? await run.options.notices.masker() : (text: string) => text;
  return (text) => store(hookOwn(text));
}

function compileNotice(action: SlackAction | DiscordAction, timeoutMs: number, shape: NoticeShape): CompiledAction {
  return {
    secretNames: [action.tokenSecret],
    executor: {
      async: true,
      timeoutMs: undefined,
      async run(run, signal) {
        const secrets = await run.secrets();
        const token = secrets.get(action.tokenSecret);
        if (!token) return { failure: `secret ${action.tokenSecret} is not set` };
        const url = shape.url(run);
        const notAllowed = secretsNotAllowedFor(hostOf(url), secrets);
        if (notAllowed) return { failure: notAllowed };
        const port = run.options.notices;
        const mask = await noticeMasker(run, [token.value]);
        const approvalId = requestedApprovalId(run);
        let body: unknown;
        let approval: ApprovalNoticeInfo | undefined;
        if (run.hook.dialect === "herdctl") body = JSON.parse(mask(JSON.stringify(shape.herdctlBody(run))));
        else {
          approval = port && approvalId ? await port.approvalNotice(approvalId, shape.recipient, { perApprover: shape.perApprover(port), editButton: shape.slackEnvelope === true && port.slackInteractive }) : undefined;
          body = shape.body({ ...(await noticeContent(run, mask)), ...(approval && { approval }) }, run);
        }
        const sent = await post(run, signal, url, shape.authorization(token.value), body, timeoutMs, shape.slackEnvelope);
        if (port && approvalId && approval && !isFailure(sent)) {
          // The answer is Slack's {ok, channel, ts} or Discord's message object.
          const message = shape.postedMessage(safeJson((sent as { stdout?: string }).stdout ?? ""));
          if (message) {
            try {
              await port.posted({ approvalId, service: shape.slackEnvelope ? "slack" : "discord", tokenSecret: action.tokenSecret, hookId: run.hook.id, ...message });
            } catch (error) {
              run.options.logger.warn("could not keep the posted approval notice", { error: String(error) });
            }
          }
        }
        return sent;
      },
    },
  };
}

/** Slack's mrkdwn link; `|` and `>` would end it early. */
function slackLink(url: string, text: string): string {
  return `<${url}|${text.replace(/[|>]/g, "")}>`;
}

function slackApprovalBlocks(approval: ApprovalNoticeInfo, interactive: boolean): unknown[] {
  const blocks: unknown[] = [];
  if (approval.approvers.length) {
    const names = approval.approvers.map((a) => (a.slackUserId ? `<@${a.slackUserId}>` : a.label)).join(", ");
    blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: `Only ${names} may decide.` }] });
  }
  if (interactive) {
    const [set] = approval.links;
    if (set) {
      blocks.push({
        type: "actions",
        block_id: "hookplane_decision",
        elements: [
          { type: "button", action_id: "hookplane_approve", style: "primary", text: { type: "plain_text", text: "Approve" }, value: set.approve.buttonValue },
          { type: "button", action_id: "hookplane_deny", style: "danger", text: { type: "plain_text", text: "Deny" }, value: set.deny.buttonValue },
          // Opens a modal to rewrite the input (slack-edit-modal.ts); only where the agent can run the rewrite.
          ...(approval.editButtonValue
            ? [{ type: "button", action_id: "hookplane_edit", text: { type: "plain_text", text: "Edit & approve" }, value: approval.editButtonValue }]
            : []),
        ],
      });
    }
  } else {
    // No endpoint verifies Slack's callbacks here: the buttons open the decision pages instead.
    for (const set of approval.links.slice(0, 20)) {
      blocks.push({
        type: "actions",
        elements: [
          { type: "button", action_id: `hookplane_open_approve_${set.recipient}`.slice(0, 255), style: "primary", text: { type: "plain_text", text: approval.restricted ? `Approve (${set.label})`.slice(0, 75) : "Approve" }, url: set.approve.url },
          { type: "button", action_id: `hookplane_open_deny_${set.recipient}`.slice(0, 255), style: "danger", text: { type: "plain_text", text: approval.restricted ? `Deny (${set.label})`.slice(0, 75) : "Deny" }, url: set.deny.url },
        ],
      });
    }
  }
  return blocks;
}

export function compileSlack(action: SlackAction, timeoutMs: number): CompiledAction {
  return compileNotice(action, timeoutMs, {
    url: (run) => CHAT_SERVICES.slack.postUrl(run.options.slackBaseUrl),
    authorization: CHAT_SERVICES.slack.authorization,
    recipient: `slack:${action.channel}`,
    // A button click names its Slack user, who is checked against the approvers: one set will do.
    perApprover: (port) => !port.slackInteractive,
    slackEnvelope: true,
    herdctlBody: (run) => herdctlSlackBody(action.channel, run),
    postedMessage: (answer) => {
      const a = answer as { ts?: unknown; channel?: unknown } | undefined;
      return typeof a?.ts === "string" ? { channel: typeof a.channel === "string" ? a.channel : action.channel, messageId: a.ts } : undefined;
    },
    body: (c, run) => {
      const links = [c.approval && slackLink(c.approval.approvalUrl, "Open the approval"), c.runUrl && slackLink(c.runUrl, "Open the run")].filter(Boolean);
      return {
        channel: action.channel,
        text: c.headline,
        blocks: [
          { type: "section", text: { type: "mrkdwn", text: c.headline } },
          ...(c.approval ? slackApprovalBlocks(c.approval, run.options.notices?.slackInteractive === true) : []),
          ...(links.length ? [{ type: "context", elements: [{ type: "mrkdwn", text: links.join(" · ") }] }] : []),
        ],
        attachments: [
          {
            color: SLACK_COLOURS[c.summary.tone],
            title: c.summary.title,
            text: c.summary.output,
            fields: c.summary.fields.map((f) => ({ title: f.name, value: f.value, short: f.value.length < 40 })),
          },
        ],
      };
    },
  });
}

/** Discord link buttons (component style 5): at most 5 rows of 5. */
function discordLinkRows(approval: ApprovalNoticeInfo): unknown[] {
  return approval.links.slice(0, 5).map((set) => ({
    type: 1,
    components: [
      { type: 2, style: 5, label: approval.restricted ? `Approve (${set.label})`.slice(0, 80) : "Approve", url: set.approve.url },
      { type: 2, style: 5, label: approval.restricted ? `Deny (${set.label})`.slice(0, 80) : "Deny", url: set.deny.url },
    ],
  }));
}

export function compileDiscord(action: DiscordAction, timeoutMs: number): CompiledAction {
  return compileNotice(action, timeoutMs, {
    url: (run) => CHAT_SERVICES.discord.postUrl(run.options.discordBaseUrl, action.channel),
    authorization: CHAT_SERVICES.discord.authorization,
    recipient: `discord:${action.channel}`,
    // Anyone in the channel can press a link button: with approvers, each gets links of their own.
    perApprover: () => true,
    slackEnvelope: false,
    herdctlBody: (run) => herdctlDiscordBody(run),
    postedMessage: (answer) => {
      const a = answer as { id?: unknown; channel_id?: unknown } | undefined;
      return typeof a?.id === "string" ? { channel: typeof a.channel_id === "string" ? a.channel_id : action.channel, messageId: a.id } : undefined;
    },
    body: (c, run) => {
      const lines = [c.headline];
      if (c.approval?.approvers.length) lines.push(`Only ${c.approval.approvers.map((a) => a.label).join(", ")} may decide.`);
      for (const set of c.approval?.links ?? []) {
        lines.push(`${c.approval!.restricted ? `${set.label}: ` : ""}approve: <${set.approve.url}> · deny: <${set.deny.url}>`);
      }
      if (c.approval) lines.push(`Approval: <${c.approval.approvalUrl}>`);
      if (c.runUrl) lines.push(`Run: <${c.runUrl}>`);
      return {
        content: truncate(lines.join("\n"), 2000),
        embeds: [
          {
            title: c.summary.title,
            color: DISCORD_COLOURS[c.summary.tone],
            description: c.summary.output || undefined,
            ...(c.runUrl && { url: c.runUrl }),
            fields: c.summary.fields.map((f) => ({ name: f.name, value: f.value || "-", inline: f.value.length < 40 })),
            timestamp: new Date(typeof run.event.ts === "number" ? run.event.ts : Date.parse(run.event.ts) || Date.now()).toISOString(),
          },
        ],
        ...(c.approval?.links.length && { components: discordLinkRows(c.approval) }),
      };
    },
  });
}

function post(
  run: ActionRun,
  signal: AbortSignal,
  url: string,
  authorization: string,
  body: unknown,
  timeoutMs: number,
  slackEnvelope: boolean,
): Promise<ActionOutcome> {
  return sendNotice(run.options.noticeHttp, {
    url,
    headers: { "content-type": "application/json; charset=utf-8", authorization },
    body: JSON.stringify(body),
    timeoutMs,
    signal,
    slackEnvelope,
  });
}

/** The error a notice reports: a failed run's reason, or the error event's message. */
export function errorText(event: ActionRun["event"]): string | undefined {
  const data = event.data;
  const outcome = typeof data.outcome === "string" ? data.outcome : event.type === "error" ? "failed" : undefined;
  if (!outcome || outcome === "completed") return undefined;
  const error = data.error ?? data.reason ?? data.message;
  return error === undefined || error === "" ? undefined : String(error);
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`;
}
