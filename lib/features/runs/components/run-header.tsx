"use client";

/** The run's status line: outcome, tokens, cost (so far, while it runs), duration, the live feed's state, pause and cancel. */
import Link from "next/link";
import { useActionState } from "react";
import { Button } from "@/components/ui/button";
import { CopyableText } from "@/components/ui/copyable-text";
import { FormMessage } from "@/components/ui/form-message";
import { cancelRunAction, rerunRunAction } from "@/lib/features/runs/run-actions";
import { StatusBadge } from "@/components/ui/run-status-badge";
import { formatTime } from "@/components/ui/format-time";
import { formatUsd } from "@/lib/core/hooks/event-summary";
import { RunActorLabel } from "@/components/ui/run-actor";
import { cancelNotice, costLabel, formatDurationMs, liveStateText, runDurationMs, sourceLabel, type LiveFeedState } from "./run-text";
import type { RunResponse } from "../schema";
import { useNow } from "./use-now";

interface FeedControls {
  socketState: LiveFeedState;
  paused: boolean;
  heldCount: number;
  pause: () => void;
  resume: () => void;
}

export function RunHeader({ run, canOperate, feed }: { run: RunResponse; canOperate: boolean; feed: FeedControls }) {
  const [cancelState, cancelAction, cancelling] = useActionState(cancelRunAction, {});
  const [rerunState, rerunAction, rerunning] = useActionState(rerunRunAction, {});
  const live = feed.socketState === "open";
  const now = useNow(1000, run.status !== "finished");
  return (
    <>
      <div className="flex flex-wrap items-center gap-4 rounded-lg border border-zinc-200 bg-white p-4 text-sm dark:border-zinc-800 dark:bg-zinc-900">
        <StatusBadge status={run.status} outcome={run.outcome} />
        <span>
          <span className="text-zinc-500">tokens</span>{" "}
          <span data-testid="run-tokens">
            {run.inputTokens} in / {run.outputTokens} out
          </span>
        </span>
        <span>
          <span className="text-zinc-500" data-testid="run-cost-label">
            {costLabel(run.status)}
          </span>{" "}
          <span data-testid="run-cost">{formatUsd(run.costUsd)}</span>
        </span>
        <span>
          <span className="text-zinc-500">{run.status === "finished" ? "took" : "running for"}</span>{" "}
          <span data-testid="run-duration">{formatDurationMs(runDurationMs(run, now))}</span>
        </span>
        <span className="text-zinc-500">started {formatTime(run.createdAt)}</span>
        <RunActorLabel actor={run.actor} withMachine />
        <span className="text-zinc-500">
          id <CopyableText inline text={run.id} label="Copy the run id" testId="run-id" />
        </span>
        <span className="ml-auto flex items-center gap-2">
          <span className={`h-2 w-2 rounded-full ${live ? "bg-emerald-500" : "bg-amber-500"}`} aria-hidden />
          <span className="text-xs text-zinc-500" data-testid="live-state">
            {liveStateText(feed)}
          </span>
          <Button type="button" variant="secondary" onClick={feed.paused ? feed.resume : feed.pause} data-testid="pause-feed">
            {feed.paused ? "Resume feed" : "Pause feed"}
          </Button>
          {canOperate && run.status === "finished" && !run.bridged && (
            <form action={rerunAction}>
              <input type="hidden" name="id" value={run.id} />
              <Button type="submit" variant="secondary" disabled={rerunning} data-testid="rerun-run" title="A new run of this agent with the same prompt">
                {rerunning ? "Starting…" : "Re-run"}
              </Button>
            </form>
          )}
          {canOperate && run.status !== "finished" && (
            <form action={cancelAction}>
              <input type="hidden" name="id" value={run.id} />
              <Button type="submit" variant="danger" disabled={cancelling} data-testid="cancel-run">
                Cancel run
              </Button>
            </form>
          )}
        </span>
      </div>
      {(run.parentRunId || run.source) && (
        <p className="text-sm text-zinc-500 dark:text-zinc-400" data-testid="run-origin">
          Source: {sourceLabel(run.source)}
          {run.parentRunId && (
            <>
              {" "}
              of{" "}
              <Link href={`/runs/${run.parentRunId}`} className="text-indigo-600 underline underline-offset-2 dark:text-indigo-400" data-testid="rerun-of">
                run {run.parentRunId.slice(0, 8)}
              </Link>
            </>
          )}
          {canOperate && run.bridged && run.status === "finished" && (
            <span data-testid="rerun-unavailable"> · a bridged session cannot be re-run from here: start it again in {sourceLabel(run.source)}</span>
          )}
        </p>
      )}
      <FormMessage state={rerunState} />
      {cancelNotice(cancelState.message, run.status) && (
        <p className="text-sm text-zinc-500" data-testid="cancel-notice">
          {cancelNotice(cancelState.message, run.status)}
        </p>
      )}
      {run.reason && run.status === "finished" && <p className="text-sm text-zinc-500">Reason: {run.reason}</p>}
    </>
  );
}
