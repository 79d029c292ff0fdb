/**
 * The sessions of npm run bench:ingest (bench/ingest.ts): what each Claude Code session sends, and
 * what its run must hold afterwards.
 */
import { randomBytes } from "node:crypto";
import { ROOT } from "./ingest-config";

type ClaudeEvent = "SessionStart" | "PreToolUse" | "PostToolUse" | "SessionEnd";

export interface PlannedCall {
  event: ClaudeEvent;
  body: string;
  /** A PreToolUse the guard must deny. */
  denied: boolean;
}

export interface SessionPlan {
  id: string;
  index: number;
  calls: PlannedCall[];
  toolCalls: number;
  denied: number;
}

/**
 * One Claude Code session. Call k of session i asks for /srv/prod when (i + k) % 10 === 9: one in
 * ten, two of every 20, and staggered by session so short paced sessions get their share. A denied
 * call has no PostToolUse (the tool never ran). The plan follows the expected answers, not the
 * received ones, so the bare server gets exactly the same requests.
 */
function planSession(id: string, index: number, toolCalls: number): SessionPlan {
  const cwd = ROOT;
  // Claude Code keeps a session's transcript in a file named by the session id; the read-back on
  // PGlite finds a run's session by it (the API does not show runs.external_session_id).
  const transcript_path = `/tmp/hookplane-bench/${id}.jsonl`;
  const call = (event: ClaudeEvent, fields: Record<string, unknown>, denied = false): PlannedCall => ({
    event,
    body: JSON.stringify({ session_id: id, hook_event_name: event, ...fields }),
    denied,
  });
  const calls = [call("SessionStart", { source: "startup", cwd, transcript_path })];
  let denied = 0;
  for (let k = 0; k < toolCalls; k++) {
    const deny = (index + k) % 10 === 9;
    const tool = {
      tool_name: "Bash",
      tool_input: { command: deny ? "cat /srv/prod/secrets" : `echo ${k}` },
      tool_use_id: `toolu_bench_${k}`,
      cwd,
      transcript_path,
      permission_mode: "default",
    };
    calls.push(call("PreToolUse", tool, deny));
    if (deny) denied++;
    else calls.push(call("PostToolUse", { ...tool, tool_response: { stdout: "ok", stderr: "", interrupted: false } }));
  }
  calls.push(call("SessionEnd", { reason: "other" }));
  return { id, index, calls, toolCalls, denied };
}

export function planLevel(tag: string, sessions: number, toolCalls: number): SessionPlan[] {
  const suffix = randomBytes(3).toString("hex");
  return Array.from({ length: sessions }, (_, i) => planSession(`bench-${tag}-${i}-${suffix}`, i, toolCalls));
}

/**
 * The events a session's run must hold, in seq order, as lib/features/bridge records Claude Code's
 * hooks (claudeSessionEvent, then ingestSessionEvent): SessionStart with source startup is
 * session.start; PreToolUse is tool.pre, followed by loop.tool_denied when a hook blocked it;
 * PostToolUse is tool.post; SessionEnd is session.end, which finishes the run (reason "other":
 * outcome completed, sessionEndOutcome).
 */
export function expectedEvents(plan: SessionPlan): string[] {
  return plan.calls.flatMap((c) => {
    switch (c.event) {
      case "SessionStart":
        return ["session.start"];
      case "PreToolUse":
        return c.denied ? ["tool.pre", "loop.tool_denied"] : ["tool.pre"];
      case "PostToolUse":
        return ["tool.post"];
      case "SessionEnd":
        return ["session.end"];
    }
  });
}
