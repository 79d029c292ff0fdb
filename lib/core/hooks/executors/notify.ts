/**
 * `slack` and `discord`: herdctl's one-way notifications. Title = agent name and run id; colour by
 * outcome (green completed, red failed, yellow timeout or cancelled); duration, event, metadata
 * fields and the truncated output. Base URLs come from the runtime options (operator
 * configuration, so their hosts pass the outbound guard even when private: tests use a local
 * server). The token secret must list the service's host among its hosts, or nothing is sent.
 * A failed run's notice carries its error text. Hooks imported from herdctl keep herdctl's own
 * message layout (herdctl-notice.ts): its titles, colours and fields.
 */
import { HookHttpError, safeFetch } from "../http-client";
import { secretsNotAllowedFor } from "../secret-placement";
import { herdctlDiscordBody, herdctlSlackBody } from "./herdctl-notice";
import type { DiscordAction, SlackAction } from "../spec";
import type { ActionOutcome, ActionRun, CompiledAction } from "./types";

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

/** Where and how one service's notice goes: its URL, auth scheme and message body. */
interface NoticeShape {
  url(run: ActionRun): string;
  authorization(token: string): string;
  body(summary: ReturnType<typeof summarize>, run: ActionRun): unknown;
  /** herdctl's own message for the same event. */
  herdctlBody(run: ActionRun): unknown;
  /** Slack answers 200 with `{ok: false}` when it refuses a message. */
  slackEnvelope: boolean;
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
        const body = run.hook.dialect === "herdctl" ? shape.herdctlBody(run) : shape.body(summarize(run), run);
        return post(run, signal, url, shape.authorization(token.value), body, timeoutMs, shape.slackEnvelope);
      },
    },
  };
}

export function compileSlack(action: SlackAction, timeoutMs: number): CompiledAction {
  return compileNotice(action, timeoutMs, {
    url: (run) => `${run.options.slackBaseUrl}/chat.postMessage`,
    authorization: (token) => `Bearer ${token}`,
    slackEnvelope: true,
    herdctlBody: (run) => herdctlSlackBody(action.channel, run),
    body: (s) => ({
      channel: action.channel,
      text: s.title,
      attachments: [
        {
          color: SLACK_COLOURS[s.tone],
          title: s.title,
          text: s.output,
          fields: s.fields.map((f) => ({ title: f.name, value: f.value, short: f.value.length < 40 })),
        },
      ],
    }),
  });
}

export function compileDiscord(action: DiscordAction, timeoutMs: number): CompiledAction {
  return compileNotice(action, timeoutMs, {
    url: (run) => `${run.options.discordBaseUrl}/channels/${encodeURIComponent(action.channel)}/messages`,
    authorization: (token) => `Bot ${token}`,
    slackEnvelope: false,
    herdctlBody: (run) => herdctlDiscordBody(run),
    body: (s, run) => ({
      embeds: [
        {
          title: s.title,
          color: DISCORD_COLOURS[s.tone],
          description: s.output || undefined,
          fields: s.fields.map((f) => ({ name: f.name, value: f.value || "-", inline: f.value.length < 40 })),
          timestamp: new Date(typeof run.event.ts === "number" ? run.event.ts : Date.parse(run.event.ts) || Date.now()).toISOString(),
        },
      ],
    }),
  });
}

async function post(
  run: ActionRun,
  signal: AbortSignal,
  url: string,
  authorization: string,
  body: unknown,
  timeoutMs: number,
  slackEnvelope: boolean,
): Promise<ActionOutcome> {
  try {
    const response = await safeFetch(run.options.noticeHttp, {
      url,
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", authorization },
      body: JSON.stringify(body),
      timeoutMs,
      signal,
    });
    if (response.status < 200 || response.status >= 300) {
      return { failure: `HTTP ${response.status}: ${response.body.slice(0, 500)}`, exitCode: response.status, stdout: response.body };
    }
    // Slack answers 200 with {ok: false, error} when the message was refused; an answer that is
    // not Slack's JSON envelope did not come from Slack's API (a proxy, a login page): a failure.
    if (slackEnvelope) {
      const parsed = safeJson(response.body) as { ok?: boolean; error?: string } | undefined;
      if (!parsed || typeof parsed !== "object") return { failure: "Slack's answer is not JSON", exitCode: response.status, stdout: response.body };
      if (parsed.ok !== true) return { failure: `Slack refused the message: ${parsed.error ?? "unknown error"}`, stdout: response.body };
    }
    return { verdict: "allow", exitCode: response.status, stdout: response.body };
  } catch (error) {
    const e = error as HookHttpError;
    return { failure: e.message, timedOut: e.timedOut === true };
  }
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
