/**
 * herdctl's Slack and Discord messages, for hooks imported from herdctl: a title per outcome
 * ("Job Completed", "Job Failed"...), its colours (green, red, amber, gray), the fields Agent,
 * Job ID, Duration, Schedule, Error and Metadata, the output as the text (Slack 3,500 characters,
 * Discord 4,096) and a "herdctl" footer. Read from herdctl's HookContext, as its runners do.
 */
import { contextForDialect } from "../dialect-contracts";
import type { ActionRun } from "./types";

const SLACK_TEXT = 3500;
const DISCORD_TEXT = 4096;
const FIELD = 900;

const HEX: Record<string, string> = { completed: "#22c55e", failed: "#ef4444", timeout: "#f59e0b", cancelled: "#6b7280" };
const TITLES: Record<string, string> = { completed: "Job Completed", failed: "Job Failed", timeout: "Job Timed Out", cancelled: "Job Cancelled" };
const EMOJI: Record<string, string> = { completed: "✅", failed: "❌", timeout: "⏱️", cancelled: "🚫" };

interface HerdctlView {
  event: string;
  agentName: string;
  jobId: string;
  durationMs: number;
  scheduleName?: string;
  error?: string;
  metadata?: Record<string, unknown>;
  output: string;
  completedAt: string;
}

function view(run: ActionRun): HerdctlView {
  const context = contextForDialect("herdctl", run.event);
  const job = (context.job ?? {}) as Record<string, unknown>;
  const result = (context.result ?? {}) as Record<string, unknown>;
  const metadata = context.metadata as Record<string, unknown> | undefined;
  const ts = run.event.ts;
  return {
    event: String(context.event),
    agentName: run.event.agentName,
    jobId: String(job.id ?? run.event.runId),
    durationMs: typeof job.durationMs === "number" ? job.durationMs : 0,
    scheduleName: typeof job.scheduleName === "string" ? job.scheduleName : undefined,
    error: typeof result.error === "string" && result.error !== "" ? result.error : undefined,
    metadata: metadata && Object.keys(metadata).length > 0 ? metadata : undefined,
    output: typeof result.output === "string" ? result.output.trim() : "",
    completedAt: typeof job.completedAt === "string" ? job.completedAt : new Date(typeof ts === "number" ? ts : Date.parse(ts)).toISOString(),
  };
}

function fields(v: HerdctlView, fence: string): { name: string; value: string; short: boolean }[] {
  const out = [
    { name: "Agent", value: v.agentName, short: true },
    { name: "Job ID", value: `\`${v.jobId}\``, short: true },
    { name: "Duration", value: herdctlDuration(v.durationMs), short: true },
  ];
  if (v.scheduleName) out.push({ name: "Schedule", value: v.scheduleName, short: true });
  if (v.error) out.push({ name: "Error", value: `\`\`\`${fence}${cut(v.error, FIELD)}${fence ? "\n" : ""}\`\`\``, short: false });
  if (v.metadata) {
    const json = cut(JSON.stringify(v.metadata, null, 2), FIELD);
    out.push({ name: "Metadata", value: fence ? `\`\`\`json\n${json}\n\`\`\`` : `\`\`\`${json}\`\`\``, short: false });
  }
  return out;
}

export function herdctlSlackBody(channel: string, run: ActionRun): unknown {
  const v = view(run);
  return {
    channel,
    attachments: [
      {
        color: HEX[v.event] ?? HEX.completed,
        fallback: `Job ${v.event === "timeout" ? "timed out" : v.event} for ${v.agentName}`,
        title: TITLES[v.event] ?? "Job Event",
        ...(v.output ? { text: cut(v.output, SLACK_TEXT) } : {}),
        fields: fields(v, "").map((f) => ({ title: f.name, value: f.value, short: f.short })),
        footer: "herdctl",
        ts: Math.floor(Date.parse(v.completedAt) / 1000),
      },
    ],
  };
}

export function herdctlDiscordBody(run: ActionRun): unknown {
  const v = view(run);
  return {
    embeds: [
      {
        title: `${EMOJI[v.event] ?? "📋"} ${TITLES[v.event] ?? "Job Event"}`,
        ...(v.output ? { description: cut(v.output, DISCORD_TEXT) } : {}),
        color: parseInt((HEX[v.event] ?? HEX.completed).slice(1), 16),
        fields: fields(v, "\n").map((f) => ({ name: f.name, value: f.value, inline: f.short })),
        timestamp: v.completedAt,
        footer: { text: "herdctl" },
      },
    ],
  };
}

/** herdctl's durations: `500ms`, `45s`, `5m 30s`, `2h 5m`. */
export function herdctlDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  const restSeconds = seconds % 60;
  if (minutes < 60) return restSeconds > 0 ? `${minutes}m ${restSeconds}s` : `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  const restMinutes = minutes % 60;
  return restMinutes > 0 ? `${hours}h ${restMinutes}m` : `${hours}h`;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 3)}...`;
}
