/**
 * Records a run's events: seqs are handed out here (the worker holding the run's claim is its only
 * writer), events are buffered and flushed in order, many per transaction, with the run's running
 * totals. `flush()` is awaited before each checkpoint, so a checkpoint never runs ahead of the
 * events it implies; a resumed run continues from the stored high-water mark.
 */
import type { Db } from "@/db/client";
import { appendRunEvents, type NewRunEvent } from "@/db/queries/run-events";
import { setRunTotals, type RunTotals } from "@/db/queries/runs";

export interface RunEventWriter {
  /** Queues an event; returns its seq. Throws if an earlier flush failed. */
  emit(type: string, data: Record<string, unknown>): number;
  flush(): Promise<void>;
  readonly lastSeq: number;
  readonly totals: RunTotals;
}

export function createRunEventWriter(db: Db, params: { runId: string; lastSeq: number; totals: RunTotals; toolsUsed: string[]; blocked: boolean }): RunEventWriter {
  let lastSeq = params.lastSeq;
  let buffer: (NewRunEvent & { seq: number })[] = [];
  let flushing: Promise<void> = Promise.resolve();
  let failure: unknown;
  let totalsDirty = false;
  const totals = { ...params.totals };
  const toolsUsed = new Set(params.toolsUsed);
  let blocked = params.blocked;

  const observe = (type: string, data: Record<string, unknown>) => {
    if (type === "model.post") {
      totals.inputTokens += Number(data.inputTokens ?? 0);
      totals.outputTokens += Number(data.outputTokens ?? 0);
      totals.cachedTokens += Number(data.cachedTokens ?? 0);
      totals.costUsd += Number(data.costUsd ?? 0);
      totalsDirty = true;
    } else if (type === "tool.pre" && typeof data.toolName === "string" && !toolsUsed.has(data.toolName)) {
      toolsUsed.add(data.toolName);
      totalsDirty = true;
    } else if (type === "loop.tool_denied" && !blocked) {
      blocked = true;
      totalsDirty = true;
    }
  };

  const drain = async () => {
    while (buffer.length > 0) {
      const batch = buffer;
      buffer = [];
      await appendRunEvents(db, { runId: params.runId, events: batch });
      if (totalsDirty) {
        totalsDirty = false;
        await setRunTotals(db, { id: params.runId, totals: { ...totals }, toolsUsed: [...toolsUsed], blocked });
      }
    }
  };

  const schedule = () => {
    flushing = flushing.then(drain).catch((error) => {
      failure ??= error;
    });
    return flushing;
  };

  return {
    emit(type, data) {
      if (failure) throw failure;
      observe(type, data);
      lastSeq += 1;
      buffer.push({ seq: lastSeq, type, data, ts: new Date() });
      if (buffer.length === 1) queueMicrotask(() => void schedule());
      return lastSeq;
    },
    async flush() {
      await schedule();
      if (failure) throw failure;
    },
    get lastSeq() {
      return lastSeq;
    },
    get totals() {
      return totals;
    },
  };
}
