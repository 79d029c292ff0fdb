/** Display helpers shared by the run list and the run view. */
export function formatUsd(value: number | undefined | null): string {
  if (value === undefined || value === null) return "—";
  if (value === 0) return "$0";
  return value < 0.01 ? `$${value.toFixed(6)}` : `$${value.toFixed(4)}`;
}

export function formatTime(value: string | Date | undefined | null): string {
  if (!value) return "—";
  const d = typeof value === "string" ? new Date(value) : value;
  return d.toLocaleString(undefined, { hour12: false });
}

export const OUTCOME_STYLES: Record<string, string> = {
  completed: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300",
  failed: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
  timeout: "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300",
  cancelled: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  budget: "bg-orange-100 text-orange-800 dark:bg-orange-950 dark:text-orange-300",
  max_turns: "bg-orange-100 text-orange-800 dark:bg-orange-950 dark:text-orange-300",
  skipped: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  running: "bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-300",
  queued: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  waiting_approval: "bg-violet-100 text-violet-800 dark:bg-violet-950 dark:text-violet-300",
};

export function StatusBadge({ status, outcome }: { status: string; outcome?: string }) {
  const label = status === "finished" ? (outcome ?? "finished") : status.replace("_", " ");
  const style = OUTCOME_STYLES[status === "finished" ? (outcome ?? "completed") : status] ?? OUTCOME_STYLES.queued;
  return (
    <span className={`inline-flex rounded px-2 py-0.5 text-xs font-medium ${style}`} data-testid="run-status">
      {label}
    </span>
  );
}

/** One line that says what an event was about. */
export function summarizeEvent(type: string, data: Record<string, unknown>): string {
  const s = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  switch (type) {
    case "tool.pre":
      return `${s(data.toolName)} ${s(data.toolInput).slice(0, 160)}`;
    case "tool.post":
      return `${s(data.toolName)} → ${data.isError ? "error: " : ""}${s(data.output).slice(0, 160)}`;
    case "model.post":
      return `${s(data.text ?? "").slice(0, 160)} · ${data.inputTokens ?? 0}/${data.outputTokens ?? 0} tokens · ${formatUsd(Number(data.costUsd ?? 0))}`;
    case "model.pre":
      return `turn ${s(data.turn)}`;
    case "session.end":
      return `${s(data.outcome)}${data.reason ? ` — ${s(data.reason)}` : ""}`;
    case "approval.requested":
      return `approval asked for ${s(data.toolName)}`;
    case "approval.settled":
      return `${data.timedOut ? "timed out" : s(data.decision)}${data.decidedBy ? ` by ${s(data.decidedBy)}` : ""}`;
    case "loop.tool_denied":
      return `${s(data.toolName)} denied: ${s(data.reason)}`;
    case "session.start":
    case "user.prompt.submit":
      return s(data.prompt ?? "").slice(0, 160);
    case "turn.end":
      return `${data.stopHookActive ? "answered again after a stop hook: " : ""}${s(data.response ?? "").slice(0, 160)}`;
    case "error":
      return s(data.message);
    case "loop.reminders":
      return Array.isArray(data.texts) ? data.texts.map(String).join(" · ") : JSON.stringify(data).slice(0, 160);
    default:
      return JSON.stringify(data).slice(0, 160);
  }
}
