/**
 * Turns what a run session records into spans, as it is recorded: the run's event writer hands
 * each committed batch (events with their seqs, ledger rows, and which events' hooks have all
 * run) to the session's recorder, which exports a span once its closing event and that event's
 * hooks are stored. Nothing instruments the agent loop a second time: the spans are the stored
 * record, read as it is written.
 *
 * A span opened in this process is completed from memory. One opened elsewhere (a run resumed
 * after an approval in another worker or after a restart, a bridged session whose requests go to
 * several web processes) is completed from the database when its closing event comes: its id
 * and its trace follow from the run and the opening event's seq, so no state is shared. The run's
 * own span goes out when its session.end has run its hooks, with the tool calls that never ended
 * (an approval abandoned by a cancel) ended where the run ended: from memory when this session
 * recorded the run from its first event, else from the database.
 *
 * Memory is bounded (runs and open spans per run, oldest dropped: a dropped span is read back
 * from the database when it closes) and nothing here throws into the run: a failed read is
 * logged and that span is lost.
 */
import type { Db } from "@/db/client";
import { listHookInvocationsOfEvents } from "@/db/queries/hook-invocations";
import { findEventBefore, listRunOutline, listToolCallEvents } from "@/db/queries/run-events";
import { getRunInAnyProject } from "@/db/queries/runs";
import { logger } from "@/lib/platform/logger";
import type { SpanRecord, TraceExport } from "@/lib/platform/telemetry/trace-export";
import type { RecordedBatch } from "../run-event-writer";
import { modelSpan, runSpan, toolSpan, type RunSummary, type RunTraceContext, type SpanParts, type StoredDecision, type StoredEvent } from "./run-spans";

export interface RunTraceRecorder {
  /** A batch the run's writer has committed. */
  observe(batch: RecordedBatch): void;
  /** The run ended without its writer (recorded directly): its span is built from the database. */
  runEnded(): void;
}

type SpanKind = "tool" | "model";

interface OpenSpan {
  kind: SpanKind;
  key: string;
  events: StoredEvent[];
  decisions: StoredDecision[];
  /** Opened in another process (or dropped from memory): read back from the database when it closes. */
  elsewhere: boolean;
  closeSeq?: number;
}

interface RunSpans {
  byKey: Map<string, OpenSpan>;
  bySeq: Map<number, OpenSpan>;
}

/** Events that belong to the run's own span (and whose hooks' decisions go on it). */
export const RUN_LEVEL_EVENTS = ["session.start", "user.prompt.submit", "turn.end", "agent.start", "agent.stop", "error", "session.end"];
const TOOL_CALL_EVENTS = ["tool.pre", "tool.post", "loop.tool_denied"];
const MAX_RUNS = 1_000;
const MAX_OPEN_PER_RUN = 1_000;

const openSpans = new Map<string, RunSpans>();
const pending = new Set<Promise<void>>();

function spansOf(runId: string): RunSpans {
  let spans = openSpans.get(runId);
  if (spans) openSpans.delete(runId);
  else spans = { byKey: new Map(), bySeq: new Map() };
  // Most recently used last: the first entry is the one to drop.
  openSpans.set(runId, spans);
  if (openSpans.size > MAX_RUNS) openSpans.delete(openSpans.keys().next().value!);
  return spans;
}

/**
 * Which span an event belongs to and what it does there. Tool calls are keyed by their call id,
 * model calls by their turn; every other event is the run's.
 */
function roleOf(e: StoredEvent): { kind: SpanKind; key: string; role: "open" | "member" | "close" | "alone"; waitsForHooks?: boolean } | undefined {
  const callId = typeof e.data.toolCallId === "string" ? e.data.toolCallId : undefined;
  switch (e.type) {
    case "tool.pre":
      return callId === undefined ? undefined : { kind: "tool", key: `tool:${callId}`, role: "open" };
    case "tool.post":
      return callId === undefined ? undefined : { kind: "tool", key: `tool:${callId}`, role: "close", waitsForHooks: true };
    case "loop.tool_denied":
      return callId === undefined ? undefined : { kind: "tool", key: `tool:${callId}`, role: e.data.by === "agent" ? "alone" : "close" };
    case "model.pre":
      return { kind: "model", key: `model:${String(e.data.turn)}`, role: "open" };
    case "model.post":
      // Usage an outside agent reported from its transcript: a call Hookplane saw only the end of.
      if (e.data.source === "transcript") return { kind: "model", key: `model:${e.seq}`, role: "alone" };
      return { kind: "model", key: `model:${String(e.data.turn)}`, role: "close", waitsForHooks: true };
    default:
      return callId === undefined ? undefined : { kind: "tool", key: `tool:${callId}`, role: "member" };
  }
}

/** Drops what this process remembers of open spans, as a restart would (tests: "another process"). */
export function forgetOpenSpans(): void {
  openSpans.clear();
}

/** Resolves once every span being read back from the database has been handed to the exporter (tests, benchmarks). */
export async function runTraceIdle(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled([...pending]);
}

export interface RunTraceOptions {
  /** This session records the run from its first event, alone (a worker's first execution): its whole record passes here. */
  fromStart: boolean;
  run: Pick<RunSummary, "prompt" | "createdAt">;
}

export function createRunTraceRecorder(db: Db, ctx: RunTraceContext, exporter: TraceExport, options: RunTraceOptions): RunTraceRecorder {
  const { runId } = ctx;
  let sessionEndSeq: number | undefined;
  /** The run span's parts and totals, kept while the whole record passes here. */
  const whole = options.fromStart
    ? { events: [] as StoredEvent[], decisions: [] as StoredDecision[], seqs: new Set<number>(), inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0 }
    : undefined;

  const background = (what: string, work: () => Promise<SpanRecord[]>) => {
    const done = work()
      .then((spans) => exporter.emit(spans))
      .catch((error) => logger.warn({ err: error, runId }, `a span could not be read back for export (${what})`))
      .finally(() => pending.delete(done));
    pending.add(done);
  };

  const build = (span: OpenSpan, parts: SpanParts) => (span.kind === "tool" ? toolSpan(ctx, parts) : modelSpan(ctx, parts));

  /** An open span read back from the database, from its opening event through its closing one. */
  const readBack = async (span: OpenSpan): Promise<SpanParts | undefined> => {
    const close = span.closeSeq!;
    let events: StoredEvent[];
    if (span.kind === "tool") {
      const all = await listToolCallEvents(db, { runId, toolCallId: span.key.slice("tool:".length), throughSeq: close });
      // A flow's agents may reuse a call id: the call is the one opened last.
      const opened = all.findLastIndex((e) => e.type === "tool.pre");
      events = opened >= 0 ? all.slice(opened) : all;
    } else {
      const closing = span.events.find((e) => e.seq === close)!;
      const opened = await findEventBefore(db, { runId, type: "model.pre", beforeSeq: close });
      events = opened ? [opened, closing] : [closing];
    }
    if (events.length === 0) return undefined;
    const decisions = await listHookInvocationsOfEvents(db, { runId, seqs: events.map((e) => e.seq) });
    return { events, decisions };
  };

  const close = (spans: RunSpans, span: OpenSpan) => {
    spans.byKey.delete(span.key);
    for (const e of span.events) spans.bySeq.delete(e.seq);
    if (!span.elsewhere) return exporter.emit([build(span, span)]);
    background(span.key, async () => {
      const parts = await readBack(span);
      return parts ? [build(span, parts)] : [];
    });
  };

  /** A tool call still open when the run ended (a wait abandoned by a cancel) ends with the run. */
  const unfinishedTool = (parts: SpanParts, ended: StoredEvent | undefined): SpanRecord => {
    const span = toolSpan(ctx, parts);
    return { ...span, end: ended?.ts ?? span.end, attributes: { ...span.attributes, "hookplane.tool.unfinished": true } };
  };

  /** The run's span, and the tool calls still open when it ended, from memory. */
  const exportWholeRun = (w: NonNullable<typeof whole>) => {
    const ended = w.events.findLast((e) => e.type === "session.end");
    const response = typeof ended?.data.response === "string" ? ended.data.response : undefined;
    const spans = [runSpan(ctx, { ...options.run, response, ...w }, w)];
    for (const span of openSpans.get(runId)?.byKey.values() ?? []) {
      if (span.kind === "tool" && !span.elsewhere && span.events[0]?.type === "tool.pre") spans.push(unfinishedTool(span, ended));
    }
    openSpans.delete(runId);
    exporter.emit(spans);
  };

  /** The run's span, and the tool calls still open when it ended, from what is stored. */
  const exportRun = () => {
    openSpans.delete(runId);
    background("run", async () => {
      const run = await getRunInAnyProject(db, { id: runId });
      if (!run) return [];
      const outline = await listRunOutline(db, { runId, types: RUN_LEVEL_EVENTS, idTypes: TOOL_CALL_EVENTS });
      const runEvents = outline.filter((e) => RUN_LEVEL_EVENTS.includes(e.type));
      const runDecisions = await listHookInvocationsOfEvents(db, { runId, seqs: runEvents.map((e) => e.seq) });
      const spans = [runSpan(ctx, run, { events: runEvents, decisions: runDecisions })];
      const ended = runEvents.findLast((e) => e.type === "session.end");
      // A tool call that never got its result or denial (a wait abandoned when the run ended) ends with the run.
      const unfinished = new Map<string, StoredEvent>();
      for (const e of outline) {
        const callId = typeof e.data.toolCallId === "string" ? e.data.toolCallId : undefined;
        if (callId === undefined) continue;
        if (e.type === "tool.pre") unfinished.set(callId, e);
        else if (e.type !== "loop.tool_denied" || e.data.by !== "agent") unfinished.delete(callId);
      }
      for (const [callId, opened] of unfinished) {
        const events = (await listToolCallEvents(db, { runId, toolCallId: callId, throughSeq: ended?.seq ?? Number.MAX_SAFE_INTEGER })).filter((e) => e.seq >= opened.seq);
        const decisions = await listHookInvocationsOfEvents(db, { runId, seqs: events.map((e) => e.seq) });
        spans.push(unfinishedTool({ events, decisions }, ended));
      }
      return spans;
    });
  };

  return {
    observe(batch) {
      try {
        const spans = spansOf(runId);
        const closing: OpenSpan[] = [];
        for (const e of batch.events) {
          if (e.type === "session.end") sessionEndSeq = e.seq;
          if (whole && RUN_LEVEL_EVENTS.includes(e.type)) {
            whole.events.push(e);
            whole.seqs.add(e.seq);
          } else if (whole && e.type === "model.post") {
            // The run's totals, added up as the writer adds them.
            for (const key of ["inputTokens", "outputTokens", "cachedTokens", "costUsd"] as const) {
              const n = Number(e.data[key] ?? 0);
              if (Number.isFinite(n)) whole[key] += n;
            }
          }
          const role = roleOf(e);
          if (!role) continue;
          if (role.role === "alone") {
            exporter.emit([build({ kind: role.kind, key: role.key, events: [e], decisions: [], elsewhere: false }, { events: [e], decisions: [] })]);
            continue;
          }
          let span = spans.byKey.get(role.key);
          if (role.role === "open") {
            if (span) for (const old of span.events) spans.bySeq.delete(old.seq);
            span = { kind: role.kind, key: role.key, events: [], decisions: [], elsewhere: false };
            spans.byKey.set(role.key, span);
            if (spans.byKey.size > MAX_OPEN_PER_RUN) {
              const oldest = spans.byKey.values().next().value!;
              spans.byKey.delete(oldest.key);
              for (const old of oldest.events) spans.bySeq.delete(old.seq);
            }
          } else if (!span) {
            // Its other events are stored; the close reads them all back.
            if (role.role === "member") continue;
            span = { kind: role.kind, key: role.key, events: [], decisions: [], elsewhere: true };
            spans.byKey.set(role.key, span);
          }
          span.events.push(e);
          spans.bySeq.set(e.seq, span);
          if (role.role === "close") {
            span.closeSeq = e.seq;
            if (!role.waitsForHooks) closing.push(span);
          }
        }
        for (const row of batch.ledger) {
          if (row.eventSeq == null) continue;
          const span = spans.bySeq.get(row.eventSeq);
          if (span) span.decisions.push(row);
          else if (whole?.seqs.has(row.eventSeq)) whole.decisions.push(row);
        }
        for (const seq of batch.settled) {
          const span = spans.bySeq.get(seq);
          if (span && span.closeSeq === seq) closing.push(span);
        }
        for (const span of closing) close(spans, span);
        if (sessionEndSeq !== undefined && batch.settled.includes(sessionEndSeq)) {
          if (whole) exportWholeRun(whole);
          else exportRun();
        }
      } catch (error) {
        logger.warn({ err: error, runId }, "spans could not be made of a recorded batch");
      }
    },
    runEnded: exportRun,
  };
}
