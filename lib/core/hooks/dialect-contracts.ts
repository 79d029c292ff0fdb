/**
 * Each dialect's runtime contract: what a hook imported from that framework receives (stdin JSON,
 * environment, webhook body) and how its answer is read (plain stdout, response bodies, notices,
 * files, skip rules). An imported hook carries `dialect` (set by its importer) and keeps its
 * framework's contract here; a hook without one keeps Hookplane's. docs/dialect-semantics.md lists
 * what holds and what differs, per framework.
 *
 * One deliberate difference for every dialect: the server's process environment never reaches a
 * hook command (herdctl, Loom and Tailored AI pass theirs). Commands get the documented variables
 * of their framework, Hookplane's hook variables, the secrets they name and the admin's
 * pass-through list (`HOOKPLANE_HOOK_ENV_PASSTHROUGH`); the importers warn about it.
 */
import { buildHookContext, type HookContext, type HookEvent } from "./event";
import type { EventName } from "./events";
import type { HookDialect } from "./spec";

/** The context a hook of `dialect` reads: on its stdin, in its webhook body and in its `when`. */
export function contextForDialect(dialect: HookDialect | undefined, event: HookEvent): HookContext {
  const context = buildHookContext(event);
  if (dialect === "herdctl") return herdctlContext(context, event);
  return context;
}

/**
 * herdctl's HookContext: `event` is the job's outcome (completed, failed, timeout, cancelled),
 * never a lifecycle name, and `job` always has `startedAt`, `completedAt` and `durationMs`.
 */
function herdctlContext(context: HookContext, event: HookEvent): HookContext {
  if (event.type !== "session.end" && event.type !== "error") return context;
  const data = event.data;
  const outcome = event.type === "error" ? "failed" : String(data.outcome ?? "completed");
  const completedMs = typeof event.ts === "number" ? event.ts : Date.parse(event.ts);
  const durationMs = typeof data.durationMs === "number" ? data.durationMs : 0;
  const job = context.job as Record<string, unknown>;
  const startedAt =
    typeof data.startedAt === "string" ? data.startedAt : Number.isFinite(completedMs) ? new Date(completedMs - durationMs).toISOString() : undefined;
  return {
    ...context,
    event: outcome,
    lifecycleEvent: event.type,
    job: { ...job, startedAt, completedAt: job.completedAt, durationMs },
  };
}

/** What a webhook of `dialect` sends: Loom wraps the context in its versioned envelope. */
export function webhookBodyFor(dialect: HookDialect | undefined, event: HookEvent, context: HookContext): unknown {
  if (dialect === "loom") return loomEnvelope(event, context);
  return context;
}

/** Loom's `{v, ts, profile, event, context}`: what its webhooks POST and save_json appends. */
export function loomEnvelope(event: HookEvent, context: HookContext): Record<string, unknown> {
  return { v: 1, ts: typeof event.ts === "number" ? event.ts : Date.parse(event.ts), profile: event.agentName, event: event.type, context };
}

/** Loom's webhooks only notify: their response is never read for a decision. */
export function readsWebhookAnswer(dialect: HookDialect | undefined): boolean {
  return dialect !== "loom";
}

/** Loom: a command's plain stdout (exit 0) is output for the model's next turn and the dispatch. */
export function plainStdoutIsOutput(dialect: HookDialect | undefined): boolean {
  return dialect === "loom";
}

/**
 * Loom's reason for a command that exited non-zero: its stderr as written, or "Hook exited with
 * code N". Undefined: Hookplane's own wording.
 */
export function nonZeroExitReason(dialect: HookDialect | undefined, exitCode: number, stderr: string): string | undefined {
  if (dialect !== "loom") return undefined;
  return stderr.trim() || `Hook exited with code ${exitCode}`;
}

/**
 * Tailored AI: a hook whose target is absent (a tool that is not registered, a program that cannot
 * be run) is skipped and the chain goes on; it never refuses, whatever its onError says.
 */
export function skipsAbsentTarget(dialect: HookDialect | undefined): boolean {
  return dialect === "tailored-ai";
}

/** herdctl: `${VAR}` in a header naming nothing set is sent as empty text. */
export function missingSecretsAreEmpty(dialect: HookDialect | undefined): boolean {
  return dialect === "herdctl";
}

/** Loom's save_json appends one JSON line per event; Hookplane's writes one pretty record. */
export function savesJsonLines(dialect: HookDialect | undefined): boolean {
  return dialect === "loom";
}

const TAILORED_AI_EVENTS: Partial<Record<EventName, string>> = {
  "session.start": "beforeRun",
  "session.end": "afterRun",
  "tool.pre": "agent.pre_tool_use",
  "tool.post": "agent.post_tool_use",
  "approval.requested": "approval.requested",
  "approval.settled": "approval.settled",
};

/** Extra environment a command of `dialect` gets: Tailored AI's TAI_* payload variables. */
export function dialectCommandEnv(dialect: HookDialect | undefined, event: HookEvent): Record<string, string> {
  if (dialect !== "tailored-ai") return {};
  return tailoredAiEnv(TAILORED_AI_EVENTS[event.type] ?? event.type, tailoredAiPayload(event));
}

/** The event as Tailored AI's bus carries it: `agent`, `tool`, `args`, `output`, `success`... */
function tailoredAiPayload(event: HookEvent): Record<string, unknown> {
  const { toolName, toolInput, output, isError, ...rest } = event.data;
  return {
    sessionId: event.sessionId ?? event.runId,
    agent: event.agentName,
    ...(toolName !== undefined && { tool: toolName }),
    ...(toolInput !== undefined && { args: toolInput }),
    ...(output !== undefined && { output }),
    ...(isError !== undefined && { success: isError !== true }),
    ...rest,
  };
}

/**
 * Tailored AI's script environment: TAI_HOOK_EVENT, then each payload field as TAI_<SNAKE_CASE>
 * (`agentName` → TAI_AGENT_NAME); scalars as text, the rest as JSON; null and undefined left out.
 */
export function tailoredAiEnv(eventName: string, payload: Record<string, unknown>): Record<string, string> {
  const env: Record<string, string> = { TAI_HOOK_EVENT: eventName };
  for (const [key, value] of Object.entries(payload)) {
    if (value === null || value === undefined) continue;
    const name = `TAI_${key
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .replace(/[^A-Za-z0-9]+/g, "_")
      .toUpperCase()}`;
    env[name] = typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value);
  }
  return env;
}

/** Loom's end reasons for Hookplane's outcomes. */
const LOOM_END_REASONS: Record<string, string> = { completed: "end_turn", cancelled: "aborted", failed: "error" };

/** Loom's `log` line: what each event is about (model, turn, stop reason, cost; end reason; error). */
export function loomLogSummary(event: HookEvent): string {
  const d = event.data;
  const session = event.sessionId ?? event.runId;
  switch (event.type) {
    case "session.start":
      return `session.start model=${d.model ?? ""} session=${session}`;
    case "user.prompt.submit":
      return `user.prompt.submit size=${typeof d.prompt === "string" ? d.prompt.length : 0}`;
    case "tool.pre":
      return `tool.pre tool=${d.toolName} turn=${d.turn ?? ""}`;
    case "tool.post":
      return `tool.post tool=${d.toolName} turn=${d.turn ?? ""} error=${d.isError === true} resultChars=${String(d.output ?? "").length}`;
    case "model.pre":
      return `model.pre model=${d.model ?? ""} turn=${d.turn} messages=${d.messageCount}`;
    case "model.post":
      return `model.post model=${d.model} turn=${d.turn ?? ""} stop=${d.stopReason} in=${d.inputTokens} out=${d.outputTokens} cost=$${Number(d.costUsd ?? 0).toFixed(4)} tools=${d.toolCallCount}`;
    case "session.end":
      return `session.end reason=${LOOM_END_REASONS[String(d.outcome)] ?? d.outcome} session=${session}`;
    case "error":
      return `error code=${d.code ?? "UNKNOWN"} message=${d.message}`;
    default:
      return event.type;
  }
}
