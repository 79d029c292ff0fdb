"use client";

/** The run page: its status line, the approvals it waits on, its trace, the live timeline and its answer. */
import { useMemo } from "react";
import { ApprovalCard, type ApprovalViewer } from "@/lib/features/approvals/components/approval-card";
import { RunHeader } from "./run-header";
import { RunTimeline } from "./run-timeline";
import type { RunResponse } from "../schema";
import { useRunStream } from "./use-run-stream";
import { RunWaterfall } from "./run-waterfall";
import { buildWaterfall } from "./waterfall";


export function RunView({ initial, canOperate, viewer }: { initial: RunResponse; canOperate: boolean; viewer: ApprovalViewer }) {
  const stream = useRunStream(initial);
  const { run } = stream;
  const waterfall = useMemo(() => buildWaterfall(stream.rows, stream.ledgerBySeq), [stream.rows, stream.ledgerBySeq]);
  return (
    <div className="space-y-4">
      <RunHeader run={run} canOperate={canOperate} feed={stream} />
      {stream.pending.map((approval) => (
        <ApprovalCard key={approval.id} approval={{ ...approval, agentName: approval.agentName ?? run.agentName }} viewer={viewer} />
      ))}
      <RunWaterfall waterfall={waterfall} running={run.status !== "finished"} />
      <RunTimeline rows={stream.rows} ledgerBySeq={stream.ledgerBySeq} latencyBySeq={waterfall.latencyBySeq} emptyText={run.status === "queued" ? "Waiting for a worker…" : "Loading events…"} />
      {run.response && (
        <section className="rounded-lg border border-zinc-200 bg-white p-4 text-sm dark:border-zinc-800 dark:bg-zinc-900">
          <h2 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">Response</h2>
          <p className="whitespace-pre-wrap" data-testid="run-response">
            {run.response}
          </p>
        </section>
      )}
    </div>
  );
}
