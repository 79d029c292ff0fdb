"use client";

/**
 * The run's trace: model calls, tool calls (with an approval wait inside) and the hooks under each,
 * as bars on one time axis, with each step's latency. Built live from the timeline (waterfall.ts).
 */
import { clsx } from "clsx";
import { useState } from "react";
import { formatDurationMs } from "./run-text";
import type { Waterfall, WaterfallBar } from "./waterfall";

/** A run of 20,000 events has thousands of steps: the trace draws the first ones, the timeline has all. */
const MAX_BARS = 300;

function barTone(bar: WaterfallBar): string {
  if (bar.status === "failed" || bar.status === "error") return "bg-amber-500";
  if (bar.status === "blocked" || bar.status === "denied" || bar.status === "deny") return "bg-red-500";
  switch (bar.kind) {
    case "model":
      return "bg-indigo-500";
    case "tool":
      return "bg-sky-500";
    case "approval":
      return "bg-violet-500";
    case "hook":
      return "bg-emerald-500";
    default:
      return "bg-zinc-400";
  }
}

export function RunWaterfall({ waterfall, running }: { waterfall: Waterfall; running: boolean }) {
  const [open, setOpen] = useState(true);
  const { bars, totalMs } = waterfall;
  if (bars.length === 0) return null;
  const shown = bars.slice(0, MAX_BARS);
  const scale = Math.max(totalMs, 1);
  return (
    <section className="rounded-lg border border-zinc-200 bg-white text-sm dark:border-zinc-800 dark:bg-zinc-900" data-testid="run-waterfall" aria-labelledby="waterfall-title">
      <div className="flex items-center gap-3 px-4 py-2">
        <h2 id="waterfall-title" className="text-xs font-semibold uppercase tracking-wide text-zinc-500 dark:text-zinc-400">
          Trace
        </h2>
        <span className="text-xs text-zinc-500 dark:text-zinc-400" data-testid="waterfall-total">
          {formatDurationMs(totalMs)}
          {running ? " so far" : ""} · {bars.filter((b) => b.kind === "model").length} model calls · {bars.filter((b) => b.kind === "tool").length} tool calls ·{" "}
          {bars.filter((b) => b.kind === "hook").length} hook runs
        </span>
        <button type="button" className="ml-auto text-xs text-indigo-600 hover:underline dark:text-indigo-400" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? "Hide" : "Show"}
        </button>
      </div>
      {open && (
        <ol className="max-h-80 overflow-auto border-t border-zinc-100 px-4 py-2 dark:border-zinc-800">
          {shown.map((bar) => {
            const left = (bar.startMs / scale) * 100;
            const width = bar.durationMs === undefined ? 100 - left : Math.max(0.4, (bar.durationMs / scale) * 100);
            return (
              <li key={bar.key} className="flex items-center gap-3 py-0.5" data-testid="waterfall-bar" data-kind={bar.kind} data-status={bar.status} data-seq={bar.seq}>
                <span className={clsx("w-32 shrink-0 truncate font-mono text-xs sm:w-56", bar.depth === 1 ? "pl-4 text-zinc-500 dark:text-zinc-400" : "text-zinc-800 dark:text-zinc-200")} title={bar.label}>
                  {bar.label}
                </span>
                <span className="relative h-3 min-w-0 flex-1 rounded bg-zinc-100 dark:bg-zinc-800" aria-hidden>
                  <span
                    className={clsx("absolute top-0 h-3 rounded", barTone(bar), bar.durationMs === undefined && "animate-pulse opacity-60")}
                    style={{ left: `${Math.min(left, 99.6)}%`, width: `${Math.min(width, 100 - Math.min(left, 99.6))}%` }}
                  />
                </span>
                <span className="w-28 shrink-0 text-right font-mono text-xs whitespace-nowrap text-zinc-500 dark:text-zinc-400 sm:w-36" data-testid="waterfall-duration">
                  {bar.durationMs === undefined ? bar.status : formatDurationMs(bar.durationMs)}
                  {bar.status !== "done" && bar.durationMs !== undefined && bar.kind !== "model" ? ` · ${bar.status}` : ""}
                </span>
              </li>
            );
          })}
          {bars.length > shown.length && <li className="pt-1 text-xs text-zinc-500 dark:text-zinc-400">The first {MAX_BARS} of {bars.length} steps; the timeline below has every event.</li>}
        </ol>
      )}
    </section>
  );
}
