"use client";

/**
 * One line of the run timeline and what opens under it: a lone event, or a tool call's span
 * (tool.pre, approval, denial, tool.post), each with the hook ledger rows of its events.
 */
import type { ReactNode } from "react";
import { summarizeEvent } from "@/lib/core/hooks/event-summary";
import type { LedgerRow } from "@/lib/platform/stream/protocol";
import type { RunEventResponse } from "../schema";
import { formatDurationMs, hookChip, verdictText } from "./run-text";
import { spanStatus, type SpanStatus } from "./timeline-rows";

const TYPE_STYLES: Record<string, string> = {
  "tool.pre": "text-sky-700 dark:text-sky-300",
  "tool.post": "text-sky-700 dark:text-sky-300",
  "model.post": "text-indigo-700 dark:text-indigo-300",
  "loop.tool_denied": "text-red-700 dark:text-red-300",
  "approval.requested": "text-violet-700 dark:text-violet-300",
  "approval.settled": "text-violet-700 dark:text-violet-300",
  "session.end": "font-semibold",
  error: "text-red-700 dark:text-red-300",
};

const SPAN_STYLES: Record<SpanStatus, string> = {
  running: "text-sky-700 dark:text-sky-300",
  "waiting approval": "text-violet-700 dark:text-violet-300",
  abandoned: "text-zinc-500 dark:text-zinc-400",
  interrupted: "text-amber-700 dark:text-amber-300",
  denied: "text-red-700 dark:text-red-300",
  error: "text-red-700 dark:text-red-300",
  done: "text-emerald-700 dark:text-emerald-300",
};

function HookLedger({ rows }: { rows: LedgerRow[] }) {
  if (rows.length === 0) return <p className="text-xs text-zinc-500">No hook was bound to this event.</p>;
  return (
    <table className="w-full text-left text-xs" data-testid="event-ledger">
      <thead className="text-zinc-500">
        <tr>
          <th className="py-1 font-medium">hook</th>
          <th className="py-1 font-medium">matched</th>
          <th className="py-1 font-medium">verdict</th>
          <th className="py-1 font-medium">reason / output</th>
          <th className="py-1 text-right font-medium">ms</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id} className="border-t border-zinc-100 align-top dark:border-zinc-800" data-failed={row.failed || row.timedOut || undefined}>
            <td className="py-1 font-mono">
              {row.hookKey}
              {row.mode === "shadow" && <span className="ml-1 text-amber-600">shadow</span>}
            </td>
            <td className="py-1">{row.matched ? "yes" : "skipped"}</td>
            <td className={`py-1 ${row.failed || row.timedOut ? "font-medium text-amber-700 dark:text-amber-300" : ""}`} data-testid="ledger-verdict">
              {verdictText(row)}
            </td>
            <td className="py-1 break-all">{row.reason ?? row.output ?? row.stderr ?? ""}</td>
            <td className="py-1 text-right">{row.durationMs === null ? "" : row.durationMs.toFixed(1)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const CHIP_TONES = {
  red: "bg-red-100 text-red-700 dark:bg-red-950 dark:text-red-300",
  amber: "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-200",
  zinc: "bg-zinc-100 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300",
} as const;

function HooksBadge({ hooks }: { hooks: LedgerRow[] }) {
  const chip = hookChip(hooks);
  if (!chip) return null;
  return (
    <span className={`shrink-0 rounded px-1.5 text-xs ${CHIP_TONES[chip.tone]}`} data-testid="hook-chip" data-tone={chip.tone}>
      {chip.text}
    </span>
  );
}

function EventDetail({ event, hooks }: { event: RunEventResponse; hooks: LedgerRow[] }) {
  return (
    <div className="space-y-2 bg-zinc-50 px-4 py-3 dark:bg-zinc-950/50">
      <HookLedger rows={hooks} />
      <pre className="max-h-72 overflow-auto rounded bg-white p-2 font-mono text-xs dark:bg-zinc-900" data-testid="event-json">
        {JSON.stringify({ seq: event.seq, type: event.type, ts: event.ts, data: event.data }, null, 2)}
      </pre>
    </div>
  );
}

/** The line of a timeline entry that opens and closes its detail: the seq, then the entry's own cells. */
function TimelineToggle({ seq, open, onToggle, status, children }: { seq: number; open: boolean; onToggle: () => void; status?: SpanStatus; children: ReactNode }) {
  return (
    <button
      type="button"
      onClick={onToggle}
      aria-expanded={open}
      className="flex w-full items-baseline gap-3 px-3 py-2 text-left text-sm hover:bg-zinc-50 dark:hover:bg-zinc-800/50"
      data-status={status}
    >
      <span className="w-10 shrink-0 text-right font-mono text-xs text-zinc-500">{seq}</span>
      {children}
    </button>
  );
}

/** Said on an event a coding agent's CLI decided alone while Hookplane was unreachable (sent later). */
function OfflineBadge({ events }: { events: RunEventResponse[] }) {
  const offline = events.find((e) => e.data.offline && typeof e.data.offline === "object")?.data.offline as
    | { decision?: string; decidedAt?: string; failMode?: string; failModeFrom?: string; againstPolicy?: boolean }
    | undefined;
  if (!offline) return null;
  const mode = offline.failMode ? ` failing ${offline.failMode} (${FAIL_MODE_SOURCE[offline.failModeFrom ?? ""] ?? "its setting"})` : "";
  const against = offline.againstPolicy ? " It let the call through although the agent's fail mode is closed." : "";
  return (
    <span
      className={
        offline.againstPolicy
          ? "shrink-0 rounded bg-red-100 px-1.5 py-0.5 text-xs text-red-900 dark:bg-red-950 dark:text-red-200"
          : "shrink-0 rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200"
      }
      title={`Hookplane was unreachable: the CLI ${offline.decision ?? "decided"} it alone${mode} at ${offline.decidedAt ?? "?"}, and reported it later. No hook ran.${against}`}
      data-testid="offline-badge"
    >
      {offline.againstPolicy ? "let through offline against policy" : "decided offline"}
    </span>
  );
}

const FAIL_MODE_SOURCE: Record<string, string> = { policy: "the agent's policy, as last answered", flag: "its --fail-open flag", default: "its default" };

export function EventEntry({ event, open, onToggle, hooks, latencyMs }: { event: RunEventResponse; open: boolean; onToggle: () => void; hooks: LedgerRow[]; latencyMs?: number }) {
  return (
    <>
      <TimelineToggle seq={event.seq} open={open} onToggle={onToggle}>
        <span className={`w-40 shrink-0 font-mono text-xs ${TYPE_STYLES[event.type] ?? ""}`}>{event.type}</span>
        <span className="min-w-0 flex-1 truncate">{summarizeEvent(event.type, event.data)}</span>
        {latencyMs !== undefined && (
          <span className="shrink-0 font-mono text-xs text-zinc-500 dark:text-zinc-400" data-testid="step-latency" title="How long this model call took">
            {formatDurationMs(latencyMs)}
          </span>
        )}
        <OfflineBadge events={[event]} />
        <HooksBadge hooks={hooks} />
      </TimelineToggle>
      {open && <EventDetail event={event} hooks={hooks} />}
    </>
  );
}

/** One tool call: its tool.pre, approval, denial and tool.post as one line that opens up. */
export function SpanEntry({ events, open, onToggle, ledgerBySeq }: { events: RunEventResponse[]; open: boolean; onToggle: () => void; ledgerBySeq: Map<number, LedgerRow[]> }) {
  const pre = events[0];
  const post = events.find((e) => e.type === "tool.post");
  const denied = events.find((e) => e.type === "loop.tool_denied");
  const status = spanStatus(events);
  const hooks = events.flatMap((e) => ledgerBySeq.get(e.seq) ?? []);
  const detail = denied ? `denied: ${String(denied.data.reason ?? "")}` : post ? summarizeEvent("tool.post", post.data) : summarizeEvent(pre.type, pre.data);
  return (
    <>
      <TimelineToggle seq={pre.seq} open={open} onToggle={onToggle} status={status}>
        <span className="w-40 shrink-0 font-mono text-xs">
          <span className="text-sky-700 dark:text-sky-300">{String(pre.data.toolName ?? "tool")}</span>{" "}
          <span className={SPAN_STYLES[status]} data-testid="span-status">
            {status}
          </span>
        </span>
        <span className="min-w-0 flex-1 truncate">{detail}</span>
        {post && (
          <span className="shrink-0 font-mono text-xs text-zinc-500" data-testid="span-duration">
            {formatDurationMs(post.data.durationMs)}
          </span>
        )}
        <OfflineBadge events={events} />
        <HooksBadge hooks={hooks} />
      </TimelineToggle>
      {open && (
        <div className="divide-y divide-zinc-100 dark:divide-zinc-800">
          {events.map((e) => (
            <div key={e.seq}>
              <p className="bg-zinc-50 px-4 pt-2 font-mono text-xs dark:bg-zinc-950/50">
                #{e.seq} {e.type} · {summarizeEvent(e.type, e.data)}
              </p>
              <EventDetail event={e} hooks={ledgerBySeq.get(e.seq) ?? []} />
            </div>
          ))}
        </div>
      )}
    </>
  );
}
