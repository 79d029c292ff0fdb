/**
 * The words the run pages say about a run's state. Kept apart from the components so each one can
 * be checked against the state it describes: a page must never say what is not so (a finished run
 * has a cost, not a "cost so far"; a page that never had a live feed is connecting, not
 * reconnecting; a cancel that took effect is no longer "requested").
 */

/** What the run's cost figure is: final once it finished, a running total before. */
export function costLabel(status: string): string {
  return status === "finished" ? "cost" : "cost so far";
}

export type LiveFeedState = "connecting" | "open" | "reconnecting" | "closed";

/** The live feed's state as the run header says it. */
export function liveStateText(feed: { socketState: LiveFeedState; paused: boolean; heldCount: number }): string {
  switch (feed.socketState) {
    case "open":
      return feed.paused ? `paused (${feed.heldCount} new)` : "live";
    case "connecting":
      return "connecting…";
    case "reconnecting":
    case "closed":
      return "reconnecting…";
  }
}

/**
 * The note under the header after the cancel button was used: only while the run still runs. Once
 * it finished, its outcome badge says how it ended (cancelled, or completed first).
 */
export function cancelNotice(message: string | undefined, status: string): string | undefined {
  if (!message || status === "finished") return undefined;
  return message;
}

/** A duration in milliseconds as a person reads it; a duration nobody measured is "—", never "0 ms". */
export function formatDurationMs(ms: unknown): string {
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1) return "<1 ms";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  if (minutes < 60) return `${minutes} min ${seconds} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * How long a run took, or has taken by `now`; undefined before it started, and for a run still
 * going when no clock was given (a server render cannot know the browser's now).
 */
export function runDurationMs(
  run: { startedAt?: string | Date | null; finishedAt?: string | Date | null },
  now?: number,
): number | undefined {
  if (!run.startedAt) return undefined;
  const end = run.finishedAt ? new Date(run.finishedAt).getTime() : now;
  if (end === undefined) return undefined;
  return Math.max(0, end - new Date(run.startedAt).getTime());
}

/** A ledger row as the hook chip and table read it. */
export interface LedgerVerdictRow {
  matched: boolean;
  verdict: string | null;
  ignored: boolean;
  failed?: boolean;
  timedOut?: boolean;
}

/**
 * The chip on a timeline entry about the hooks of its events: a block first, then a hook that failed
 * or timed out (its onFailure may have let the call through, but it did not do its job), then how many
 * of the hooks bound to the event ran.
 */
export function hookChip(rows: LedgerVerdictRow[]): { tone: "red" | "amber" | "zinc"; text: string } | undefined {
  if (rows.length === 0) return undefined;
  if (rows.some((r) => r.verdict === "block" && !r.ignored)) return { tone: "red", text: "blocked by hook" };
  const failed = rows.filter((r) => r.failed || r.timedOut).length;
  if (failed > 0) return { tone: "amber", text: `${failed} hook${failed === 1 ? "" : "s"} failed` };
  return { tone: "zinc", text: `${rows.filter((r) => r.matched).length}/${rows.length} hooks` };
}

/** The verdict cell of a ledger row: a failure says so before what its onFailure made of it. */
export function verdictText(row: LedgerVerdictRow): string {
  const verdict = row.verdict ?? "—";
  const ignored = row.ignored && row.verdict ? " (ignored)" : "";
  if (row.timedOut) return `timed out → ${verdict}${ignored}`;
  if (row.failed) return `failed → ${verdict}${ignored}`;
  return `${verdict}${ignored}`;
}

const SOURCES: Record<string, string> = {
  dashboard: "dashboard",
  api: "API",
  schedule: "schedule",
  rerun: "re-run",
  "claude-code": "Claude Code",
  codex: "Codex",
  "gemini-cli": "Gemini CLI",
  copilot: "Copilot CLI",
  cursor: "Cursor",
};

/** Where a run came from, as the runs list names it. */
export function sourceLabel(source: string | undefined): string {
  if (!source) return "—";
  return SOURCES[source] ?? source;
}
