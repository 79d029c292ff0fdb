/**
 * What each event carries: one zod schema per event of hook-model.md's table, plus the facts the
 * agent loop and the bridges record about themselves (`loop.*`, ...). The loop's
 * `emit`/`fire`, the ingest endpoints and the stream all use these, so a payload means the same
 * thing wherever it is read. Objects are loose: a runtime may add fields (Claude Code's `cwd`),
 * never drop or retype the ones named here.
 */
import { z } from "zod";
import { issuePath, type Issue } from "../issues";
import { EVENT_NAMES, OUTCOMES, type EventName } from "./events";

const count = z.number().int().min(0);
const text = z.string().max(1_000_000);
const name = z.string().min(1).max(500);

const toolCall = { toolName: name, toolInput: z.unknown(), toolCallId: z.string().min(1).max(500) };

const approvalFacts = {
  approvalId: z.string().min(1),
  toolCallId: z.string().nullish(),
  toolName: z.string().nullish(),
  toolInput: z.unknown(),
  hookId: z.string().optional(),
};

/** The lifecycle events hooks bind to. */
export const EVENT_PAYLOADS = {
  "session.start": z.looseObject({ prompt: text }),
  "user.prompt.submit": z.looseObject({ prompt: text }),
  "model.pre": z.looseObject({ model: name.optional(), turn: count, messageCount: count }),
  "model.post": z.looseObject({
    model: name,
    turn: count.optional(),
    stopReason: z.string().optional(),
    inputTokens: count,
    outputTokens: count,
    cachedTokens: count,
    costUsd: z.number().min(0),
    toolCallCount: count,
    text: z.string(),
  }),
  "tool.pre": z.looseObject(toolCall),
  "tool.post": z.looseObject({ ...toolCall, output: z.unknown(), isError: z.boolean(), durationMs: z.number().min(0) }),
  /**
   * One answer of the agent ended (not the session; Claude Code's Stop). `stopHookActive`: the
   * agent is already working on because a turn.end hook blocked before (loops check it to stop).
   */
  "turn.end": z.looseObject({ stopHookActive: z.boolean(), response: z.string().optional() }),
  "approval.requested": z.looseObject({ ...approvalFacts, message: z.string().optional(), expiresAt: z.string().optional() }),
  "approval.settled": z.looseObject({
    ...approvalFacts,
    status: z.enum(["approved", "denied", "timed_out", "abandoned"]),
    decision: z.enum(["approve", "deny"]),
    decidedBy: z.string().optional(),
    decidedVia: z.string().optional(),
    reason: z.string().optional(),
    timedOut: z.boolean(),
  }),
  "agent.start": z.looseObject({ agentName: name }),
  "agent.stop": z.looseObject({ agentName: name }),
  error: z.looseObject({ message: text, stack: z.string().optional() }),
  "session.end": z.looseObject({
    outcome: z.enum(OUTCOMES),
    reason: z.string().optional(),
    response: z.string().optional(),
    inputTokens: count.optional(),
    outputTokens: count.optional(),
    costUsd: z.number().min(0).optional(),
    durationMs: z.number().min(0).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
} satisfies Record<EventName, z.ZodType>;

/** What the loop and the bridges record about themselves; hooks do not bind to these. */
export const FACT_PAYLOADS = {
  /** Who refused the call: a hook, the agent (a change it cannot apply), the person's budget, the CLI alone while offline. */
  "loop.tool_denied": z.looseObject({ toolCallId: z.unknown(), toolName: z.unknown(), reason: z.string(), by: z.enum(["hook", "agent", "budget", "offline"]) }),
  "loop.resumed": z.looseObject({ stage: count, phase: z.string(), turn: count }),
  "loop.reminders": z.looseObject({ texts: z.array(z.string()), source: z.enum(["pending", "model.pre"]) }),
  "loop.metadata": z.looseObject({ metadata: z.record(z.string(), z.unknown()) }),
  "loop.transform_error": z.looseObject({ point: z.string(), message: z.string() }),
  "loop.tool_result_removed": z.looseObject({ toolCallId: z.string(), toolName: z.string() }),
  /** A call that started before a crash or shutdown and left no result: run again (it only reads) or not. */
  "loop.tool_interrupted": z.looseObject({ toolCallId: z.string(), toolName: z.string(), retried: z.boolean() }),
  /** Hooks (a modify hook, an approver's edit) changed a call: the input it ran with, or the output the model saw. */
  "loop.tool_modified": z.looseObject({ toolCallId: z.unknown(), toolName: z.unknown(), kind: z.enum(["input", "output"]), by: z.array(z.string()) }),
  "code_hook.error": z.looseObject({}),
  "code_hook.missing": z.looseObject({}),
} as const;

export type EventPayload<T extends EventName> = z.infer<(typeof EVENT_PAYLOADS)[T]>;
export type FactName = keyof typeof FACT_PAYLOADS;
export type FactPayload<T extends FactName> = z.infer<(typeof FACT_PAYLOADS)[T]>;

/** The fields an outside runtime must send for each event; the rest may be left out. */
const INGEST_REQUIRED = {
  "session.start": [],
  "user.prompt.submit": ["prompt"],
  "model.pre": [],
  "model.post": ["model"],
  "tool.pre": ["toolName"],
  "tool.post": ["toolName"],
  "turn.end": [],
  "approval.requested": ["approvalId"],
  "approval.settled": ["approvalId", "status", "decision"],
  "agent.start": ["agentName"],
  "agent.stop": ["agentName"],
  error: ["message"],
  "session.end": [],
} as const satisfies Record<EventName, readonly string[]>;

/**
 * A payload as every way in guarantees it (the loop's own events in full, an outside runtime's
 * with what says what happened): each named field typed when present, the required ones always.
 */
export type RecordedPayload<T extends EventName> = Partial<EventPayload<T>> & Pick<EventPayload<T>, (typeof INGEST_REQUIRED)[T][number] & keyof EventPayload<T>>;

/**
 * What an event of type `T` carries when it is recorded: the catalog's payload for a lifecycle
 * event or a loop fact (so a write with a literal type is checked where it is written), a loose
 * record for any other type (an agent's own, recorded only) or a type known only at run time.
 */
export type PayloadFor<T extends string> = T extends EventName ? RecordedPayload<T> : T extends FactName ? FactPayload<T> : Record<string, unknown>;

/**
 * Narrows a stored or streamed event (`{type, data}` as the database, the stream and the browser
 * hold it) to its catalog payload by its type: each way in checked that payload before it was
 * stored, so a branch on the type reads typed fields instead of checking each one by hand.
 */
export function isEventOf<T extends EventName>(event: { type: string; data: Record<string, unknown> }, type: T): event is { type: T; data: RecordedPayload<T> } {
  return event.type === type;
}

/** Built once per event: a hook call of a bridged agent checks its payload with it. */
const ingestSchemas = new Map<EventName, z.ZodType<Record<string, unknown>>>();

/**
 * The ingest endpoints' view of a lifecycle payload: every named field keeps its type, but only
 * the ones that say what happened are required (an outside runtime may not know a duration, and
 * the server makes up a tool call's id when none is given).
 */
export function ingestPayloadSchema(type: EventName): z.ZodType<Record<string, unknown>> {
  let schema = ingestSchemas.get(type);
  if (!schema) {
    const partial = (EVENT_PAYLOADS[type] as unknown as z.ZodObject).partial();
    const required: readonly string[] = INGEST_REQUIRED[type];
    schema = required.length === 0 ? partial : partial.required(Object.fromEntries(required.map((k) => [k, true])) as never);
    ingestSchemas.set(type, schema);
  }
  return schema;
}

const CATALOG = new Set<string>(EVENT_NAMES);

/**
 * What is wrong with a payload an ingest path made for a catalog event (each bridge maps its
 * agent's hook input to one), at `data.<field>`; nothing for the other types, which are only
 * recorded. The bridges check what they produce here, once, before anything is stored.
 */
export function producedPayloadIssues(type: string, data: Record<string, unknown>): Issue[] {
  if (!CATALOG.has(type)) return [];
  const checked = ingestPayloadSchema(type as EventName).safeParse(data);
  return checked.success ? [] : checked.error.issues.map((i) => ({ path: issuePath(["data", ...i.path]), message: i.message }));
}
