/**
 * The lifecycle event catalog: the names every dialect, the UI, the API and the stored data share.
 * See docs/hook-model.md. `blocking` says whether a block verdict stops the action.
 */
export const EVENT_CATALOG = {
  "session.start": { blocking: true, description: "once, before the first model call" },
  "user.prompt.submit": { blocking: true, description: "when a prompt enters the loop" },
  "model.pre": { blocking: false, description: "before each provider call; may inject context for this call" },
  "model.post": { blocking: false, description: "after each provider response is recorded" },
  "tool.pre": { blocking: true, description: "before each tool call" },
  "tool.post": { blocking: false, description: "after a tool that ran, success or failure" },
  "turn.end": {
    blocking: true,
    description:
      "after each turn in which the agent answered without tool calls; a block keeps the agent working: the reason becomes the next user message",
  },
  "approval.requested": { blocking: false, description: "a human decision was asked for" },
  "approval.settled": { blocking: false, description: "a human decision was made or timed out" },
  "agent.start": { blocking: true, description: "each agent of a multi-agent flow starts" },
  "agent.stop": {
    blocking: true,
    description: "each agent of a multi-agent flow stops; a block sends a finished agent back to work with the reason",
  },
  error: { blocking: false, description: "unrecoverable failure, just before session.end" },
  "session.end": { blocking: false, description: "on every exit, whatever the outcome" },
} as const;

export type EventName = keyof typeof EVENT_CATALOG;
export const EVENT_NAMES = Object.keys(EVENT_CATALOG) as EventName[];

export const OUTCOMES = ["completed", "failed", "timeout", "cancelled", "budget", "max_turns", "skipped"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export function isBlockingEvent(event: EventName): boolean {
  return EVENT_CATALOG[event].blocking;
}

/** Levenshtein distance, small inputs only (event names, dialect keys). */
function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = above;
    }
  }
  return prev[b.length];
}

/** The closest name among `candidates`, for "did you mean" messages; undefined when nothing is close. */
export function nearestName(input: string, candidates: readonly string[]): string | undefined {
  const needle = input.toLowerCase();
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of candidates) {
    const c = candidate.toLowerCase();
    const score = c.includes(needle) || needle.includes(c) ? 0.5 : editDistance(needle, c);
    if (score < bestScore) {
      bestScore = score;
      best = candidate;
    }
  }
  return bestScore <= Math.max(3, needle.length / 2) ? best : undefined;
}
