/**
 * Claude Code's ingest as Cursor calls it. Cursor runs the hooks of `.claude/settings*.json` too
 * (its "third-party hooks", cursor.com/docs/reference/third-party-hooks), mapping Claude Code's
 * event names onto its own and sending its own payload: `conversation_id` and `workspace_roots`
 * where Claude Code sends `session_id` and `cwd`, Cursor's tool names (`Shell`, `Write`). So a
 * `hookplane hook claude-code` command from those files reaches /api/v1/ingest/claude-code with
 * Cursor's payload: it is told apart by `conversation_id` without `session_id`, recorded as the
 * Cursor session it is (source `cursor`, `via: "claude-code-settings"`), and answered in both
 * shapes (Cursor's `permission`, Claude Code's `hookSpecificOutput`); the CLI also exits 2 on a
 * refusal, which both read as a block. No Cursor run has been recorded here (Cursor does not
 * install on this machine): the event names both ways are accepted.
 */
import { z } from "zod";
import type { DispatchResult } from "@/lib/core/hooks/runtime-types";
import { claudeHookInputSchema, claudeHookOutput, claudeInputIssues, claudeSessionEvent, type ClaudeHookInput } from "./claude-code-protocol";
import { cursorHookInputSchema, cursorHookOutput, cursorInputIssues, cursorSessionEvent, type CursorHookInput } from "./cursor-protocol";
import type { SessionEvent } from "./session-ingest";

/** Claude Code's event names → Cursor's, as Cursor maps them. */
const CURSOR_EVENT_OF: Record<string, string> = {
  PreToolUse: "preToolUse",
  PostToolUse: "postToolUse",
  PostToolUseFailure: "postToolUseFailure",
  UserPromptSubmit: "beforeSubmitPrompt",
  Stop: "stop",
  SubagentStart: "subagentStart",
  SubagentStop: "subagentStop",
  SessionStart: "sessionStart",
  SessionEnd: "sessionEnd",
  PreCompact: "preCompact",
};
const CLAUDE_EVENT_OF: Record<string, string> = Object.fromEntries(Object.entries(CURSOR_EVENT_OF).map(([claude, cursor]) => [cursor, claude]));

/** Cursor's payload: a conversation, not a session. */
export function isCursorPayload(value: unknown): boolean {
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return typeof v.conversation_id === "string" && v.session_id === undefined;
}

export type ClaudeSettingsInput = { via: "claude-code"; input: ClaudeHookInput } | { via: "cursor"; input: CursorHookInput };

/** Either agent's payload, validated by its own schema (a refusal names the field as that schema does). */
export const claudeSettingsInputSchema = z.unknown().transform((value, ctx): ClaudeSettingsInput => {
  const cursor = isCursorPayload(value);
  const parsed = cursor ? cursorHookInputSchema.safeParse(value) : claudeHookInputSchema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path as PropertyKey[] });
    return z.NEVER;
  }
  if (!cursor) return { via: "claude-code", input: parsed.data as ClaudeHookInput };
  const input = parsed.data as CursorHookInput;
  const named = CURSOR_EVENT_OF[input.hook_event_name];
  // Its own name for the event, whichever Cursor sent, and the name it came with kept as sent.
  return { via: "cursor", input: named ? { ...input, hook_event_name: named, sent_hook_event_name: input.hook_event_name } : input };
});

export function claudeSettingsIssues(body: ClaudeSettingsInput) {
  return body.via === "cursor" ? cursorInputIssues(body.input) : claudeInputIssues(body.input);
}

export function claudeSettingsEvent(agent: string, body: ClaudeSettingsInput): SessionEvent {
  if (body.via === "claude-code") return claudeSessionEvent(agent, body.input);
  const event = cursorSessionEvent(agent, body.input);
  return { ...event, data: { ...event.data, via: "claude-code-settings" } };
}

/** Claude Code's answer, or, to Cursor, its own answer with Claude Code's beside it (whichever it reads, it reads the same decision). */
export function claudeSettingsAnswer(body: ClaudeSettingsInput, result: DispatchResult | undefined): unknown {
  if (body.via === "claude-code") return claudeHookOutput(body.input.hook_event_name, result, body.input.tool_name);
  const cursor = cursorHookOutput(body.input.hook_event_name, result);
  const claudeName = CLAUDE_EVENT_OF[body.input.hook_event_name];
  return claudeName ? { ...claudeHookOutput(claudeName, result), ...cursor } : cursor;
}
