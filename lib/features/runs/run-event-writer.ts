/**
 * Records a run: its events, the hook ledger rows of its dispatches, new transcript messages, the
 * totals they add and the loop's checkpoint, written together (db appendRunRecords: one
 * statement per flush). Totals are computed here and nowhere else, from the events themselves.
 *
 * Two modes:
 * - `owner`: the worker holding the run's lease is its only writer, so seqs are handed out here
 *   and events are buffered; a flush goes out on the next turn of the event loop (so an event,
 *   its hooks' ledger rows and the checkpoint after them usually share one write) or when
 *   the loop saves a checkpoint, which never runs ahead of the events it implies.
 * - `shared`: an outside session (the bridge) may send several requests at once; each event is
 *   written at once and the database hands out its seq.
 *
 * An observer (the run's trace recorder, when traces are exported) gets each batch once it is
 * committed: the events with their seqs, the ledger rows, and which events' hooks have all run.
 */
import type { Db } from "@/db/client";
import type { NewHookInvocation } from "@/db/queries/hook-invocations";
import { appendRunRecords, type LedgerRowOfBatch, type NewRunEvent, type RecordExpectation, type RunTotalsDelta } from "@/db/queries/run-events";
import type { RunTotals } from "@/db/queries/runs";
import type { PayloadFor } from "@/lib/core/hooks/event-payloads";
import { recordWrittenEvents } from "./run-metrics";

export interface RunRecordExtras {
  checkpoint?: unknown;
  messages?: { stage: number; idx: number; message: Record<string, unknown> }[];
}

export interface RunEventWriter {
  /**
   * Owner mode: queues an event and returns its seq. Throws if an earlier flush failed.
   * `dispatched`: its hooks already ran (dispatched before it had a seq, a tool.post): the ledger
   * rows queued without an event seq are about it, and its hooks have all run.
   */
  emit<T extends string>(type: T, data: PayloadFor<T>, options?: { dispatched?: boolean }): number;
  /** Either mode: records an event and resolves with its seq (shared mode: once it is written). */
  record<T extends string>(type: T, data: PayloadFor<T>): Promise<number>;
  /**
   * Shared mode: the events of one dispatch that ran before they were recorded (nothing in it
   * could wait for a person), written in one statement with the ledger rows queued meanwhile,
   * which are about the first event; that event's hooks have all run. Resolves with its seq.
   * With `expect`, written only while it holds (else StaleRecordError, nothing written, and the
   * writer is done: its caller decides the call again in a new session).
   */
  recordDispatched(events: { type: string; data: Record<string, unknown>; ts?: Date }[], expect?: RecordExpectation): Promise<number>;
  /** Queues ledger rows; they go out with the next flush. */
  ledger(rows: NewHookInvocation[]): void;
  /** Writes everything queued, with the extras, in one statement (atomic). */
  flush(extras?: RunRecordExtras): Promise<void>;
  /** Queues a checkpoint (replacing a queued one) and messages; they go out with the next flush. */
  stage(extras: RunRecordExtras): void;
  /**
   * Says the hooks of event `seq` have all run, so everything about it is queued: the observer
   * learns it with the next committed batch. A no-op without an observer.
   */
  dispatched(seq: number): void;
  readonly lastSeq: number;
  /** The run's totals as this writer knows them (owner mode: exact). */
  readonly totals: RunTotals;
}

export interface RunEventWriterParams {
  runId: string;
  mode: "owner" | "shared";
  lastSeq: number;
  totals: RunTotals;
  toolsUsed: string[];
  blocked: boolean;
  /** When the run started, for the duration of a session.end without its own (metrics). */
  startedAt?: Date;
  /** Called with each committed batch; what it throws is ignored (it must never fail the run). */
  observer?: (batch: RecordedBatch) => void;
}

/** A committed batch as the observer sees it. */
export interface RecordedBatch {
  events: { seq: number; type: string; ts: Date; data: Record<string, unknown> }[];
  ledger: NewHookInvocation[];
  settled: number[];
}

function emptyDelta(): RunTotalsDelta {
  return { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, toolsUsed: [], blocked: false };
}

export function createRunEventWriter(db: Db, params: RunEventWriterParams): RunEventWriter {
  let lastSeq = params.lastSeq;
  let events: (NewRunEvent & { seq?: number })[] = [];
  let ledgerRows: LedgerRowOfBatch[] = [];
  let delta: RunTotalsDelta | undefined;
  let flushing: Promise<void> = Promise.resolve();
  let scheduled = false;
  let failure: unknown;
  const totals = { ...params.totals };
  const toolsUsed = new Set(params.toolsUsed);
  let blocked = params.blocked;

  /** The totals an event adds: tokens and cost on model.post, a new tool on tool.pre, a denial. */
  const observe = (type: string, data: Record<string, unknown>) => {
    if (type === "model.post") {
      const d = (delta ??= emptyDelta());
      const add = (key: "inputTokens" | "outputTokens" | "cachedTokens" | "costUsd") => {
        const n = Number(data[key] ?? 0);
        if (Number.isFinite(n)) {
          d[key] += n;
          totals[key] += n;
        }
      };
      add("inputTokens");
      add("outputTokens");
      add("cachedTokens");
      add("costUsd");
    } else if (type === "tool.pre" && typeof data.toolName === "string" && !toolsUsed.has(data.toolName)) {
      toolsUsed.add(data.toolName);
      (delta ??= emptyDelta()).toolsUsed.push(data.toolName);
    } else if (type === "loop.tool_denied" && !blocked) {
      blocked = true;
      (delta ??= emptyDelta()).blocked = true;
    }
  };

  let stagedCheckpoint: { value: unknown } | undefined;
  let stagedMessages: NonNullable<RunRecordExtras["messages"]> = [];
  let settled: number[] = [];
  const { observer } = params;

  const write = async (extras: RunRecordExtras = {}, settlesFirst = false, expect?: RecordExpectation) => {
    const batch = events;
    // Owner mode: a row without a seq belongs to an event recorded after its hooks, not queued yet.
    const waiting = params.mode === "owner" && ledgerRows.some((row) => row.eventSeq == null) ? ledgerRows.filter((row) => row.eventSeq == null) : [];
    const rows = waiting.length > 0 ? ledgerRows.filter((row) => row.eventSeq != null) : ledgerRows;
    const added = delta;
    const checkpoint = extras.checkpoint !== undefined ? { value: extras.checkpoint } : stagedCheckpoint;
    const messages = extras.messages ? [...stagedMessages, ...extras.messages] : stagedMessages;
    const done = settled;
    events = [];
    ledgerRows = waiting;
    delta = undefined;
    stagedCheckpoint = undefined;
    stagedMessages = [];
    settled = [];
    const written = await appendRunRecords(db, {
      runId: params.runId,
      events: batch,
      ledger: rows,
      totals: added,
      messages,
      ...(checkpoint && { checkpoint: checkpoint.value }),
      ...(expect && { expect }),
    });
    recordWrittenEvents(batch, written, params.startedAt);
    if (observer && batch.length > 0) {
      const first = written - batch.length + 1;
      if (settlesFirst) done.push(first);
      // Rows written before their event's seq was known point at it now (as the stored rows do).
      for (const row of rows) if (row.eventIndex !== undefined && row.eventSeq == null) row.eventSeq = first + row.eventIndex;
    }
    if (observer && (batch.length > 0 || rows.length > 0 || done.length > 0)) {
      // The batch's seqs end at the run's last seq: the counter handed them out together.
      const first = written - batch.length + 1;
      try {
        observer({ events: batch.map((e, i) => ({ seq: first + i, type: e.type, ts: e.ts ?? new Date(), data: e.data })), ledger: rows, settled: done });
      } catch {
        // Telemetry never fails a run.
      }
    }
    return written;
  };

  const enqueue = (extras?: RunRecordExtras, settlesFirst?: boolean, expect?: RecordExpectation): Promise<number> => {
    const done = flushing.then(() => {
      if (failure) throw failure;
      return write(extras, settlesFirst, expect);
    });
    flushing = done.then(
      () => undefined,
      (error) => {
        failure ??= error;
      },
    );
    return done;
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void enqueue().catch(() => {});
    });
  };

  return {
    emit(type, data, options) {
      if (params.mode !== "owner") throw new Error("emit is for the run's owner; a shared writer records with record()");
      if (failure) throw failure;
      observe(type, data);
      lastSeq += 1;
      events.push({ type, data, ts: new Date() });
      if (options?.dispatched) {
        for (const row of ledgerRows) if (row.eventSeq == null) row.eventSeq = lastSeq;
        if (observer) settled.push(lastSeq);
      }
      schedule();
      return lastSeq;
    },
    async record(type, data) {
      if (params.mode === "owner") return this.emit(type, data);
      observe(type, data);
      events.push({ type, data, ts: new Date() });
      lastSeq = await enqueue();
      return lastSeq;
    },
    async recordDispatched(batch, expect) {
      if (params.mode === "owner") throw new Error("recordDispatched is for a shared writer: the owner hands out seqs before it dispatches");
      for (const row of ledgerRows) if (row.eventSeq == null) row.eventIndex = 0;
      for (const { type, data, ts } of batch) {
        observe(type, data);
        events.push({ type, data, ts: ts ?? new Date() });
      }
      lastSeq = await enqueue(undefined, true, expect);
      return lastSeq - batch.length + 1;
    },
    ledger(rows) {
      if (rows.length === 0) return;
      ledgerRows.push(...rows);
      // Owner mode: rows without a seq wait for their event (emit with `dispatched`), which follows them.
      if (params.mode === "owner" && rows.some((row) => row.eventSeq != null)) schedule();
    },
    dispatched(seq) {
      if (!observer) return;
      settled.push(seq);
      if (params.mode === "owner") schedule();
    },
    async flush(extras) {
      await enqueue(extras);
    },
    stage(extras) {
      if (failure) throw failure;
      if (extras.checkpoint !== undefined) stagedCheckpoint = { value: extras.checkpoint };
      if (extras.messages?.length) stagedMessages.push(...extras.messages);
      schedule();
    },
    get lastSeq() {
      return lastSeq;
    },
    get totals() {
      return totals;
    },
  };
}
