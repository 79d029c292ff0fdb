/**
 * What Claude Code's importer and exporter share: the event an export writes for a canonical
 * event, the failed-tool condition and the default timeout. Its event names are in
 * claude-code-events.ts.
 */
import type { EventName } from "@/lib/core/hooks/events";
import type { ClaudeCodeEvent } from "./claude-code-events";

/** Canonical event → the Claude Code event an export writes. session.end → SessionEnd: it fires once per exit, like session.end. */
export const EXPORT_EVENT: Partial<Record<EventName, ClaudeCodeEvent>> = {
  "tool.pre": "PreToolUse",
  "tool.post": "PostToolUse",
  "user.prompt.submit": "UserPromptSubmit",
  "session.start": "SessionStart",
  "session.end": "SessionEnd",
  "turn.end": "Stop",
  "agent.start": "SubagentStart",
  "agent.stop": "SubagentStop",
  error: "StopFailure",
};

/** Claude Code's PostToolUse fires on success only; its failures are PostToolUseFailure. */
export const FAILED_TOOL = "isError";
export const DEFAULT_TIMEOUT_S = 600;
