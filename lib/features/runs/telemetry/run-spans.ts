/**
 * A run's stored record as OpenTelemetry spans, after the GenAI semantic conventions: the run is
 * an `invoke_agent {agent}` span, each model call a `chat {model}` span and each tool call an
 * `execute_tool {tool}` span under it. What the hooks decided about an event is a
 * `hookplane.hook.decision` span event on the span of that event (a run-level event's on the run
 * span), timed from the event's timestamp and the hooks' own durations.
 *
 * Pure: the same stored events and ledger rows give the same spans, ids included, in whichever
 * process they are read. The trace id is the run's id (a UUID is 16 bytes, as a trace id is), and
 * a span's id derives from the seq of the event that opened it (the run's own span is event 0).
 *
 * Content (prompts, model text, tool inputs and outputs) goes on spans only when the operator
 * turns it on (HOOKPLANE_OTEL_CAPTURE_CONTENT), as the conventions recommend: tool inputs carry
 * whatever the model put there. The reason of a hook that blocked, skipped or asked a person is
 * always exported (it is the decision); what an allowing hook said (a `log` hook's line, a
 * command's output) is content.
 */
import { createHash } from "node:crypto";
import type { Attributes } from "@opentelemetry/api";
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import type { NewHookInvocation } from "@/db/queries/hook-invocations";
import type { SpanRecord } from "@/lib/platform/telemetry/trace-export";
import * as sc from "./semconv";

export interface StoredEvent {
  seq: number;
  type: string;
  ts: Date;
  data: Record<string, unknown>;
}

/** A ledger row, as written or as read back. */
export type StoredDecision = Pick<
  NewHookInvocation,
  "eventSeq" | "event" | "hookKey" | "hookVersion" | "matched" | "verdict" | "reason" | "mode" | "action" | "failed" | "timedOut" | "ignored" | "approval" | "durationMs"
>;

export interface RunTraceContext {
  runId: string;
  agent: { id: string; name: string; /** `provider:model` of an agent Hookplane runs itself. */ model?: string };
  /** runs.source: api, schedule, claude-code, codex, ... */
  source: string;
  /** An outside agent's own session id (the bridge): the conversation the run is part of. */
  externalSessionId?: string | null;
  /** The person (or token) behind an outside session: `enduser.id` on the run's span. */
  actor?: { userId?: string | null; label?: string | null };
  captureContent: boolean;
}

/** What one span is made of: its events (the first opened it, the last closed it) and their hooks' rows. */
export interface SpanParts {
  events: StoredEvent[];
  decisions: StoredDecision[];
}

/** The run row's part of the run span. */
export interface RunSummary {
  prompt: string;
  response?: string | null;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
  createdAt: Date;
}

/** Content attributes are capped: a tool's output can be megabytes. */
export const CONTENT_CAP = 16 * 1024;

export function traceIdOf(runId: string): string {
  const hex = runId.replace(/-/g, "").toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) && !/^0+$/.test(hex) ? hex : createHash("sha256").update(runId).digest("hex").slice(0, 32);
}

/** The span opened by event `seq` of the run; seq 0 is the run's own span. */
export function spanIdOf(runId: string, seq: number): string {
  return createHash("sha256").update(`${runId}/${seq}`).digest("hex").slice(0, 16);
}

/** "openai:gpt-4o" → openai, gpt-4o; a model without a provider ("scripted") is its own provider. */
export function modelParts(model: string): { provider: string; name: string } {
  const i = model.indexOf(":");
  return i > 0 ? { provider: model.slice(0, i), name: model.slice(i + 1) } : { provider: model, name: model };
}

/** The model providers of the coding agents the bridge serves (gen_ai.provider.name's values where one applies). */
const BRIDGED_PROVIDERS: Record<string, string> = { "claude-code": "anthropic", codex: "openai", "gemini-cli": "gcp.gemini" };

const conversationOf = (ctx: RunTraceContext) => ctx.externalSessionId ?? ctx.runId;
const str = (v: unknown) => (typeof v === "string" ? v : undefined);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const capped = (text: string) => (text.length > CONTENT_CAP ? `${text.slice(0, CONTENT_CAP)}…` : text);
const asText = (v: unknown) => capped(typeof v === "string" ? v : (JSON.stringify(v) ?? ""));

/** Attributes without the undefined ones (an unset attribute is left out, not sent empty). */
function attributes(entries: Record<string, Attributes[string]>): Attributes {
  const out: Attributes = {};
  for (const key in entries) if (entries[key] !== undefined) out[key] = entries[key];
  return out;
}

/**
 * The hooks' decisions about the events, one span event per hook that matched. Each is timed at
 * the end of its hook: the event's time plus the durations of the hooks before it in the chain,
 * or when a person decided, for an approval.
 */
function decisionEvents(events: StoredEvent[], decisions: StoredDecision[], captureContent: boolean): NonNullable<SpanRecord["events"]> {
  const out: NonNullable<SpanRecord["events"]> = [];
  const bySeq = new Map<number, StoredDecision[]>();
  for (const d of decisions) if (d.eventSeq != null) bySeq.set(d.eventSeq, [...(bySeq.get(d.eventSeq) ?? []), d]);
  for (const event of events) {
    let cursor = event.ts.getTime();
    for (const d of bySeq.get(event.seq) ?? []) {
      const approval = (d.approval ?? undefined) as Record<string, unknown> | undefined;
      const decidedAt = str(approval?.decidedAt);
      cursor = decidedAt ? Date.parse(decidedAt) : cursor + (d.durationMs ?? 0);
      if (!d.matched) continue;
      const explains = d.verdict !== "allow" || approval !== undefined || captureContent;
      out.push({
        name: "hookplane.hook.decision",
        time: new Date(cursor),
        attributes: attributes({
          "hookplane.hook.id": d.hookKey,
          "hookplane.hook.version": d.hookVersion ?? undefined,
          "hookplane.hook.event": d.event,
          "hookplane.hook.action": d.action ?? undefined,
          "hookplane.hook.mode": d.mode ?? undefined,
          "hookplane.hook.verdict": d.verdict ?? undefined,
          "hookplane.hook.reason": explains ? (d.reason ?? undefined) : undefined,
          "hookplane.hook.duration_ms": d.durationMs ?? undefined,
          "hookplane.hook.failed": d.failed || undefined,
          "hookplane.hook.timed_out": d.timedOut || undefined,
          "hookplane.hook.ignored": d.ignored || undefined,
          "hookplane.approval.id": str(approval?.approvalId),
          "hookplane.approval.status": str(approval?.status),
          "hookplane.approval.decided_by": str(approval?.decidedBy),
          "hookplane.approval.decided_via": str(approval?.decidedVia),
          "hookplane.approval.timed_out": approval?.timedOut === true || undefined,
        }),
      });
    }
  }
  return out;
}

function byTime(events: NonNullable<SpanRecord["events"]>) {
  return events.sort((a, b) => a.time.getTime() - b.time.getTime());
}

/** The last run's trace and root span ids: a run's spans are built one after another. */
let lastRun = { runId: "", traceId: "", rootId: "" };
function runIds(runId: string) {
  if (lastRun.runId !== runId) lastRun = { runId, traceId: traceIdOf(runId), rootId: spanIdOf(runId, 0) };
  return lastRun;
}

function child(ctx: RunTraceContext, opened: StoredEvent) {
  const ids = runIds(ctx.runId);
  return { traceId: ids.traceId, spanId: spanIdOf(ctx.runId, opened.seq), parentSpanId: ids.rootId };
}

/** A tool call: tool.pre to tool.post, or to its denial (error status, `error.type` blocked). */
export function toolSpan(ctx: RunTraceContext, parts: SpanParts): SpanRecord {
  const [first] = parts.events;
  const last = parts.events.at(-1)!;
  const of = (type: string) => parts.events.find((e) => e.type === type);
  const pre = of("tool.pre");
  const post = of("tool.post");
  const denied = of("loop.tool_denied");
  const interrupted = parts.events.find((e) => e.type === "loop.tool_interrupted" && e.data.retried === false);
  const toolName = str(first.data.toolName) ?? "unknown";
  const input = (pre ?? post)?.data.toolInput;

  const events = decisionEvents(parts.events, parts.decisions, ctx.captureContent);
  for (const e of parts.events) {
    if (e.type === "approval.requested" || e.type === "approval.settled") {
      events.push({
        name: `hookplane.${e.type}`,
        time: e.ts,
        attributes: attributes({
          "hookplane.approval.id": str(e.data.approvalId),
          "hookplane.hook.id": str(e.data.hookId),
          "hookplane.approval.status": str(e.data.status),
          "hookplane.approval.decision": str(e.data.decision),
          "hookplane.approval.decided_by": str(e.data.decidedBy),
          "hookplane.approval.timed_out": e.data.timedOut === true || undefined,
        }),
      });
    } else if (e.type === "loop.tool_interrupted") {
      events.push({ name: "hookplane.tool.interrupted", time: e.ts, attributes: { "hookplane.tool.retried": e.data.retried === true } });
    }
  }

  let error: SpanRecord["error"];
  let errorType: string | undefined;
  if (denied) {
    error = { message: str(denied.data.reason) ?? "denied" };
    errorType = "blocked";
  } else if (interrupted) {
    error = { message: "the tool call was cut short and not run again" };
    errorType = "interrupted";
  } else if (post?.data.isError === true) {
    error = { message: "the tool returned an error" };
    errorType = "tool_error";
  }

  return {
    ...child(ctx, first),
    name: `execute_tool ${toolName}`,
    kind: "internal",
    start: first.ts,
    end: last.ts,
    attributes: attributes({
      [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      [sc.ATTR_GEN_AI_TOOL_NAME]: toolName,
      [sc.ATTR_GEN_AI_TOOL_CALL_ID]: str(first.data.toolCallId),
      [sc.ATTR_GEN_AI_CONVERSATION_ID]: conversationOf(ctx),
      [sc.ATTR_OPENINFERENCE_SPAN_KIND]: "TOOL",
      [ATTR_ERROR_TYPE]: errorType,
      "hookplane.tool.denied_by": denied ? (str(denied.data.by) ?? "hook") : undefined,
      [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: ctx.captureContent && input !== undefined ? asText(input) : undefined,
      [sc.ATTR_GEN_AI_TOOL_CALL_RESULT]: ctx.captureContent && post && !denied ? asText(post.data.output) : undefined,
    }),
    events: byTime(events),
    ...(error && { error }),
  };
}

/** A model call: model.pre to model.post (or model.post alone: usage an outside agent reported from its transcript). */
export function modelSpan(ctx: RunTraceContext, parts: SpanParts): SpanRecord {
  const [first] = parts.events;
  const post = parts.events.find((e) => e.type === "model.post");
  const end = post ?? parts.events.at(-1)!;
  const model = modelParts(str(end.data.model) ?? str(first.data.model) ?? ctx.agent.model ?? "unknown");
  const stopReason = str(post?.data.stopReason);
  const text = str(post?.data.text);
  return {
    ...child(ctx, first),
    name: `chat ${model.name}`,
    kind: "client",
    start: first.ts,
    end: end.ts,
    attributes: attributes({
      [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      [sc.ATTR_GEN_AI_PROVIDER_NAME]: model.provider,
      [sc.ATTR_GEN_AI_SYSTEM]: model.provider,
      [sc.ATTR_GEN_AI_REQUEST_MODEL]: model.name,
      [sc.ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: stopReason ? [stopReason] : undefined,
      [sc.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: num(post?.data.inputTokens),
      [sc.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: num(post?.data.outputTokens),
      [sc.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: num(post?.data.cachedTokens),
      [sc.ATTR_GEN_AI_USAGE_COST]: num(post?.data.costUsd),
      [sc.ATTR_GEN_AI_CONVERSATION_ID]: conversationOf(ctx),
      [sc.ATTR_OPENINFERENCE_SPAN_KIND]: "LLM",
      "hookplane.turn": num(first.data.turn) ?? num(post?.data.turn),
      "hookplane.model.source": str(post?.data.source),
      [sc.ATTR_GEN_AI_OUTPUT_MESSAGES]:
        ctx.captureContent && post
          ? JSON.stringify([{ role: "assistant", parts: text ? [{ type: "text", content: capped(text) }] : [], ...(stopReason && { finish_reason: stopReason }) }])
          : undefined,
    }),
    events: byTime(decisionEvents(parts.events, parts.decisions, ctx.captureContent)),
  };
}

/** Outcomes that are failures of the run (the others end it as asked: a limit, a cancel, a skip). */
const FAILED_OUTCOMES = new Set(["failed", "timeout"]);

/**
 * The run: from its first event to its (last) session.end. `parts` holds its run-level events
 * (session.start, prompts, turn ends, errors, session.end) and their hooks' rows.
 */
export function runSpan(ctx: RunTraceContext, run: RunSummary, parts: SpanParts): SpanRecord {
  const end = parts.events.findLast((e) => e.type === "session.end");
  const start = parts.events[0]?.ts ?? run.createdAt;
  const outcome = str(end?.data.outcome);
  const reason = str(end?.data.reason);
  const response = str(end?.data.response) ?? run.response ?? undefined;
  const provider = ctx.agent.model && !ctx.externalSessionId ? modelParts(ctx.agent.model).provider : (BRIDGED_PROVIDERS[ctx.source] ?? ctx.source);
  const model = ctx.agent.model && !ctx.externalSessionId ? modelParts(ctx.agent.model).name : undefined;

  const events = decisionEvents(parts.events, parts.decisions, ctx.captureContent);
  for (const e of parts.events) {
    if (e.type === "error") events.push({ name: "exception", time: e.ts, attributes: attributes({ "exception.message": str(e.data.message) }) });
  }
  return {
    traceId: traceIdOf(ctx.runId),
    spanId: spanIdOf(ctx.runId, 0),
    name: `invoke_agent ${ctx.agent.name}`,
    kind: "internal",
    start,
    end: end?.ts ?? parts.events.at(-1)?.ts ?? start,
    attributes: attributes({
      [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      [sc.ATTR_GEN_AI_PROVIDER_NAME]: provider,
      [sc.ATTR_GEN_AI_SYSTEM]: provider,
      [sc.ATTR_GEN_AI_REQUEST_MODEL]: model,
      [sc.ATTR_GEN_AI_AGENT_ID]: ctx.agent.id,
      [sc.ATTR_GEN_AI_AGENT_NAME]: ctx.agent.name,
      [sc.ATTR_GEN_AI_CONVERSATION_ID]: conversationOf(ctx),
      [sc.ATTR_SESSION_ID]: conversationOf(ctx),
      [sc.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: run.inputTokens,
      [sc.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: run.outputTokens,
      [sc.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: run.cachedTokens,
      [sc.ATTR_GEN_AI_USAGE_COST]: run.costUsd,
      [sc.ATTR_OPENINFERENCE_SPAN_KIND]: "AGENT",
      "hookplane.run.id": ctx.runId,
      "hookplane.run.source": ctx.source,
      // OpenTelemetry's end user: the person's id, else the token's label.
      "enduser.id": ctx.actor?.userId ?? ctx.actor?.label ?? undefined,
      "hookplane.actor": ctx.actor?.label ?? undefined,
      "hookplane.run.outcome": outcome,
      "hookplane.run.reason": reason,
      [ATTR_ERROR_TYPE]: outcome && FAILED_OUTCOMES.has(outcome) ? outcome : undefined,
      [sc.ATTR_GEN_AI_INPUT_MESSAGES]: ctx.captureContent ? JSON.stringify([{ role: "user", parts: [{ type: "text", content: capped(run.prompt) }] }]) : undefined,
      [sc.ATTR_GEN_AI_OUTPUT_MESSAGES]:
        ctx.captureContent && response !== undefined ? JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: capped(response) }] }]) : undefined,
    }),
    events: byTime(events),
    ...(outcome && FAILED_OUTCOMES.has(outcome) && { error: { message: reason ?? outcome } }),
  };
}
