"use client";

/** The run's status line: outcome, tokens, cost so far, the live feed's state, pause and cancel. */
import { useActionState } from "react";
import { Button } from "@/components/ui/button";
import { cancelRunAction } from "@/lib/features/runs/run-actions";
import { StatusBadge, formatTime, formatUsd } from "./run-format";
import type { RunSummary } from "./run-types";

interface FeedControls {
  socketState: string;
  paused: boolean;
  heldCount: number;
  pause: () => void;
  resume: () => void;
}

export function RunHeader({ run, canOperate, feed }: { run: RunSummary; canOperate: boolean; feed: FeedControls }) {
  const [cancelState, cancelAction, cancelling] = useActionState(cancelRunAction, {});
  const live = feed.socketState === "open";
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
          <span className="text-zinc-500">cost so far</span> <span data-testid="run-cost">{formatUsd(run.costUsd)}</span>
        </span>
        <span className="text-zinc-500">started {formatTime(run.createdAt)}</span>
        <span className="ml-auto flex items-center gap-2">
          <span className={`h-2 w-2 rounded-full ${live ? "bg-emerald-500" : "bg-amber-500"}`} aria-hidden />
          <span className="text-xs text-zinc-500" data-testid="live-state">
            {live ? (feed.paused ? `paused (${feed.heldCount} new)` : "live") : "reconnecting…"}
          </span>
          <Button type="button" variant="secondary" onClick={feed.paused ? feed.resume : feed.pause} data-testid="pause-feed">
            {feed.paused ? "Resume feed" : "Pause feed"}
          </Button>
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
      {cancelState.message && <p className="text-sm text-zinc-500">{cancelState.message}</p>}
      {run.reason && run.status === "finished" && <p className="text-sm text-zinc-500">Reason: {run.reason}</p>}
    </>
  );
}
