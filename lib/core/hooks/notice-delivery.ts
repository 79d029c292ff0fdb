/**
 * The one client of each service notices go to: Slack's chat.postMessage, a Discord channel's
 * messages, a webhook. The `slack`, `discord` and `webhook` hook actions (executors/notify.ts,
 * executors/webhook.ts) and the alert notices (lib/features/alerts) all send through here, so the
 * outbound guard, the token's host binding, Slack's `{ok: false}` envelope and the webhook's
 * `${secret:NAME}` headers are handled in one place.
 */
import { HookHttpError, checkUrl, safeFetch, type SafeFetchPolicy } from "./http-client";
import { basicAuthorization, splitUserinfo } from "./outbound-url";
import type { SecretPort, SecretValue } from "./ports";
import { secretsNotAllowedFor } from "./secret-placement";
import type { DiscordAction, SlackAction, WebhookAction } from "./spec";
import { renderWithSecrets, secretNamesIn } from "./template";
import type { ActionOutcome } from "./executors/types";

/** Where each chat service takes a new message, and how its bot token is sent. */
export const CHAT_SERVICES = {
  slack: { postUrl: (base: string) => `${base}/chat.postMessage`, authorization: (token: string) => `Bearer ${token}` },
  discord: {
    postUrl: (base: string, channel: string) => `${base}/channels/${encodeURIComponent(channel)}/messages`,
    authorization: (token: string) => `Bot ${token}`,
  },
} as const;

export interface NoticeRequest {
  url: string | URL;
  method?: "POST" | "PUT" | "PATCH";
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** Slack answers 200 with `{ok: false}` when it refuses a message. */
  slackEnvelope?: boolean;
}

/** Sends one notice; a non-2xx answer, or Slack's refusal, is a failure with the reason. Never throws. */
export async function sendNotice(policy: SafeFetchPolicy, req: NoticeRequest): Promise<ActionOutcome> {
  try {
    const response = await safeFetch(policy, { url: req.url, method: req.method ?? "POST", headers: req.headers, body: req.body, timeoutMs: req.timeoutMs, signal: req.signal });
    if (response.status < 200 || response.status >= 300) {
      return { failure: `HTTP ${response.status}: ${response.body.slice(0, 500)}`, exitCode: response.status, stdout: response.body };
    }
    // Slack answers 200 with {ok: false, error} when the message was refused; an answer that is
    // not Slack's JSON envelope did not come from Slack's API (a proxy, a login page): a failure.
    if (req.slackEnvelope) {
      const parsed = safeJson(response.body) as { ok?: boolean; error?: string } | undefined;
      if (!parsed || typeof parsed !== "object") return { failure: "Slack's answer is not JSON", exitCode: response.status, stdout: response.body };
      if (parsed.ok !== true) return { failure: `Slack refused the message: ${parsed.error ?? "unknown error"}`, stdout: response.body };
    }
    return { verdict: "allow", exitCode: response.status, stdout: response.body };
  } catch (error) {
    const e = error as HookHttpError;
    return { failure: e.message || "the notice could not be sent", timedOut: e.timedOut === true };
  }
}

/** The named secrets as the port has them (a bare string is bound to no host); missing ones are left out. */
export async function resolveSecrets(port: SecretPort | undefined, names: Iterable<string>): Promise<Map<string, SecretValue>> {
  const secrets = new Map<string, SecretValue>();
  if (!port) return secrets;
  for (const name of names) {
    const found = await port.get(name);
    if (found !== undefined) secrets.set(name, typeof found === "string" ? { value: found, hosts: [] } : found);
  }
  return secrets;
}

/**
 * A webhook's URL and headers, ready to send: userinfo taken out of the URL (a Basic
 * `authorization` header unless one is set), the URL checked against the guard, every secret bound
 * to the URL's host, `${secret:NAME}` rendered in header values by `render`.
 */
export function webhookRequest(
  rawUrl: string,
  headerTemplates: Record<string, string>,
  options: {
    http: SafeFetchPolicy;
    secrets: ReadonlyMap<string, SecretValue>;
    /** Secret values by name as the headers and userinfo use them. */
    values: ReadonlyMap<string, string>;
    render: (text: string) => string;
  },
): { url: URL; headers: Record<string, string> } | { failure: string } {
  const { url: bare, userinfo } = splitUserinfo(rawUrl);
  let url: URL;
  try {
    url = checkUrl(bare, options.http);
  } catch (error) {
    return { failure: (error as HookHttpError).message };
  }
  const notAllowed = secretsNotAllowedFor(url.hostname, options.secrets);
  if (notAllowed) return { failure: notAllowed };
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "hookplane-hooks" };
  for (const [name, value] of Object.entries(headerTemplates)) headers[name] = options.render(value);
  if (userinfo !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "authorization")) {
    headers.authorization = basicAuthorization(userinfo, options.values);
  }
  return { url, headers };
}

/** What a notice that is not about a hook event says: one line, a link back, a colour. */
export interface PlainNotice {
  line: string;
  link?: { url: string; label: string };
  tone: "failure" | "success" | "warning" | "neutral";
  /** The JSON a webhook gets (the line and link are added as `notice`). */
  data: Record<string, unknown>;
}

export interface PlainNoticeDeps {
  secrets: SecretPort;
  /** Webhooks: the admin's allow-list (and the older only-these-hosts list). */
  http: SafeFetchPolicy;
  /** Slack and Discord: the allow-list plus their configured hosts. */
  noticeHttp: SafeFetchPolicy;
  slackBaseUrl: string;
  discordBaseUrl: string;
  /** Hides every secret value the server knows, in what leaves. */
  mask: (text: string) => string;
  signal: AbortSignal;
}

const SLACK_COLOURS = { success: "#2eb67d", failure: "#e01e5a", warning: "#ecb22e", neutral: "#4a5568" } as const;
const DISCORD_COLOURS = { success: 0x2ecc71, failure: 0xe74c3c, warning: 0xf1c40f, neutral: 0x95a5a6 } as const;
const DEFAULT_TIMEOUT_MS = 10_000;

/** Sends `notice` to a Slack or Discord channel, or a webhook, as the hook actions of those types would. */
export async function sendPlainNotice(target: SlackAction | DiscordAction | WebhookAction, notice: PlainNotice, deps: PlainNoticeDeps): Promise<ActionOutcome> {
  const line = deps.mask(notice.line);
  const timeoutMs = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (target.type === "webhook") {
    const secrets = await resolveSecrets(deps.secrets, secretNamesIn({ url: target.url, headers: target.headers }));
    const values = new Map([...secrets].map(([name, s]) => [name, s.value]));
    const request = webhookRequest(target.url, target.headers ?? {}, { http: deps.http, secrets, values, render: (text) => renderWithSecrets(text, {}, undefined, values) });
    if ("failure" in request) return request;
    const body = deps.mask(JSON.stringify({ ...notice.data, notice: { summary: notice.line, ...(notice.link && { url: notice.link.url }) } }));
    return sendNotice(deps.http, { url: request.url, method: target.method ?? "POST", headers: request.headers, body, timeoutMs, signal: deps.signal });
  }
  const secrets = await resolveSecrets(deps.secrets, [target.tokenSecret]);
  const token = secrets.get(target.tokenSecret);
  if (!token) return { failure: `secret ${target.tokenSecret} is not set` };
  const service = CHAT_SERVICES[target.type];
  const url = target.type === "slack" ? CHAT_SERVICES.slack.postUrl(deps.slackBaseUrl) : CHAT_SERVICES.discord.postUrl(deps.discordBaseUrl, target.channel);
  const notAllowed = secretsNotAllowedFor(new URL(url).hostname, secrets);
  if (notAllowed) return { failure: notAllowed };
  const body =
    target.type === "slack"
      ? {
          channel: target.channel,
          text: line,
          blocks: [
            { type: "section", text: { type: "mrkdwn", text: line } },
            ...(notice.link ? [{ type: "context", elements: [{ type: "mrkdwn", text: `<${notice.link.url}|${notice.link.label.replace(/[|>]/g, "")}>` }] }] : []),
          ],
          attachments: [{ color: SLACK_COLOURS[notice.tone], fallback: line }],
        }
      : {
          content: [line, ...(notice.link ? [`${notice.link.label}: <${notice.link.url}>`] : [])].join("\n").slice(0, 2000),
          embeds: [{ title: line.slice(0, 256), color: DISCORD_COLOURS[notice.tone], ...(notice.link && { url: notice.link.url }) }],
        };
  return sendNotice(deps.noticeHttp, {
    url,
    headers: { "content-type": "application/json; charset=utf-8", authorization: service.authorization(token.value) },
    body: JSON.stringify(body),
    timeoutMs,
    signal: deps.signal,
    slackEnvelope: target.type === "slack",
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
