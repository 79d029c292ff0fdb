/**
 * One line that says what a run's event was about, for the run timeline and for the approval card's
 * "what the agent was doing" (its recent events). Plain text of the event's own data, so every page
 * that lists events says them the same way.
 */

export function formatUsd(value: number | undefined | null): string {
  if (value === undefined || value === null) return "—";
  if (value === 0) return "$0";
  return value < 0.01 ? `$${value.toFixed(6)}` : `$${value.toFixed(4)}`;
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
      return describeLoopEvent(type, data) ?? describeFields(data);
  }
}

const PHASES: Record<string, string> = {
  model: "before its model call",
  model_post: "after its model call",
  tools: "in its tool calls",
  turn_end: "at the end of its turn",
};

const str = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/**
 * The loop's own records (not hook events), in words: `loop.resumed {"stage":0,"phase":"tools","turn":2}`
 * reads "resumed from its checkpoint after 2 turns, in its tool calls" (a run resumes after a wait
 * for a person as after a restart). Undefined for a type it does not know.
 */
export function describeLoopEvent(type: string, data: Record<string, unknown>): string | undefined {
  switch (type) {
    case "loop.resumed": {
      const phase = typeof data.phase === "string" ? PHASES[data.phase] : undefined;
      const stage = typeof data.stage === "number" && data.stage > 0 ? ` of stage ${data.stage + 1}` : "";
      const turns = typeof data.turn === "number" ? ` after ${data.turn} turn${data.turn === 1 ? "" : "s"}` : "";
      return `resumed from its checkpoint${stage}${turns}${phase ? `, ${phase}` : ""}`;
    }
    case "loop.metadata":
      return `the agent's metadata file: ${str(data.metadata ?? {}).slice(0, 140)}`;
    case "loop.tool_interrupted":
      return data.retried
        ? `${str(data.toolName)} was cut short by a restart and is run again`
        : `${str(data.toolName)} was cut short by a restart and not run again (it may have had its effect)`;
    case "loop.tool_result_removed":
      return `a code hook removed the result of ${str(data.toolName)}`;
    case "loop.transform_error":
      return `a code hook failed at ${str(data.point)}: ${str(data.message)}; the original data was kept`;
    default:
      return undefined;
  }
}

/** Fields of an event no summary knows, as `name value` pairs rather than raw JSON. */
export function describeFields(data: Record<string, unknown>): string {
  return Object.entries(data)
    .filter(([, v]) => v !== undefined && v !== null && v !== "")
    .map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join(" · ")
    .slice(0, 160);
}
