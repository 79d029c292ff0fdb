/**
 * Claude Code's hook protocol, both ways: its stdin JSON becomes a Hookplane session event, and a
 * dispatch result becomes the JSON output Claude Code reads (exit code 0 always: a deny is said in
 * JSON, which Claude Code treats like exit 2 but with a structured reason).
 *
 * | Claude Code | Hookplane | answer |
 * |---|---|---|
 * | SessionStart | session.start | context → additionalContext; a block → `continue: false` (SessionStart itself cannot block) |
 * | UserPromptSubmit | user.prompt.submit | block → `decision: "block"`; context → additionalContext |
 * | PreToolUse | tool.pre | block → permissionDecision deny; a person's approval → allow; context → additionalContext |
 * | PostToolUse | tool.post | context → additionalContext |
 * | SubagentStop | agent.stop | `{}` |
 * | Stop | `turn.end`, recorded only | `{}` (Stop fires after every answer, not at the session's end) |
 * | SessionEnd | session.end, finishes the run | `{}` |
 * | anything else | `claude-code.<name>`, recorded only | `{}` |
 */
import { z } from "zod";
import type { DispatchResult } from "@/lib/core/hooks/runtime-types";
import type { SessionEvent } from "./session-ingest";

/** What Claude Code writes on a hook's stdin; unknown fields are kept (new versions add some). */
export const claudeHookInputSchema = z.looseObject({
  session_id: z.string().min(1).max(300),
  hook_event_name: z.string().min(1).max(100),
  cwd: z.string().optional(),
  transcript_path: z.string().optional(),
  permission_mode: z.string().optional(),
  tool_name: z.string().min(1).optional(),
  tool_input: z.unknown().optional(),
  tool_response: z.unknown().optional(),
  tool_use_id: z.string().optional(),
  prompt: z.string().optional(),
  source: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  stop_hook_active: z.boolean().optional(),
  last_assistant_message: z.string().optional(),
});
export type ClaudeHookInput = z.infer<typeof claudeHookInputSchema>;

/** A tool event without a tool name is not Claude Code talking; say so at the field. */
export function claudeInputIssues(input: ClaudeHookInput): { path: string; message: string }[] {
  const toolEvent = input.hook_event_name === "PreToolUse" || input.hook_event_name === "PostToolUse";
  return toolEvent && !input.tool_name ? [{ path: "tool_name", message: `${input.hook_event_name} needs tool_name` }] : [];
}

function isError(response: unknown): boolean {
  if (!response || typeof response !== "object") return false;
  const r = response as Record<string, unknown>;
  return r.is_error === true || r.success === false || (typeof r.error === "string" && r.error.length > 0);
}

export function claudeSessionEvent(agent: string, input: ClaudeHookInput): SessionEvent {
  const common = { agent, sessionId: input.session_id, source: "claude-code", title: `Claude Code session ${input.session_id.slice(0, 8)}${input.cwd ? ` in ${input.cwd}` : ""}` };
  const where = input.cwd ? { cwd: input.cwd } : {};
  switch (input.hook_event_name) {
    case "SessionStart":
      return { ...common, type: "session.start", data: { ...where, source: input.source } };
    case "UserPromptSubmit":
      return { ...common, type: "user.prompt.submit", data: { ...where, prompt: input.prompt ?? "" } };
    case "PreToolUse":
      return { ...common, type: "tool.pre", data: { ...where, toolName: input.tool_name, toolInput: input.tool_input ?? {}, toolCallId: input.tool_use_id } };
    case "PostToolUse":
      return {
        ...common,
        type: "tool.post",
        data: {
          ...where,
          toolName: input.tool_name,
          toolInput: input.tool_input ?? {},
          toolCallId: input.tool_use_id,
          output: input.tool_response,
          isError: isError(input.tool_response),
        },
      };
    case "SubagentStop":
      return { ...common, type: "agent.stop", data: { ...where, agentName: "subagent" } };
    case "Stop":
      return { ...common, type: "turn.end", data: { ...where, stopHookActive: input.stop_hook_active ?? false, response: input.last_assistant_message } };
    case "SessionEnd":
      return { ...common, type: "session.end", data: { ...where, outcome: "completed", reason: input.reason ?? "session ended" } };
    default:
      return { ...common, type: `claude-code.${input.hook_event_name}`, data: { ...where, message: input.message } };
  }
}

export type ClaudeHookOutput = {
  continue?: boolean;
  stopReason?: string;
  decision?: "block";
  reason?: string;
  hookSpecificOutput?: {
    hookEventName: string;
    permissionDecision?: "allow" | "deny";
    permissionDecisionReason?: string;
    additionalContext?: string;
  };
};

function additionalContext(result: DispatchResult): string | undefined {
  // On a block the reason is said on its own; the rest of what hooks had to say still goes along.
  const texts = result.verdict === "block" ? [...result.context, ...(result.output ? [result.output] : [])] : result.reminders;
  return texts.length > 0 ? texts.join("\n\n") : undefined;
}

/**
 * Claude Code's answer. A plain allow is `{}` (Claude Code's own permission rules still apply);
 * only a person's approval returns `permissionDecision: "allow"`, since a person just said yes.
 */
export function claudeHookOutput(hookEventName: string, result: DispatchResult | undefined): ClaudeHookOutput {
  if (!result) return {};
  const context = additionalContext(result);
  const reason = result.reason ?? "Blocked by a Hookplane hook";
  const withContext = (extra: Partial<NonNullable<ClaudeHookOutput["hookSpecificOutput"]>> = {}): ClaudeHookOutput => {
    const specific = { ...extra, ...(context ? { additionalContext: context } : {}) };
    return Object.keys(specific).length > 0 ? { hookSpecificOutput: { hookEventName, ...specific } } : {};
  };
  switch (hookEventName) {
    case "PreToolUse":
      if (result.verdict === "block") return withContext({ permissionDecision: "deny", permissionDecisionReason: reason });
      if (result.approval?.decision === "approve") {
        const { decidedBy, reason: why, timedOut } = result.approval;
        const said = timedOut ? "allowed in Hookplane: nobody decided in time" : `approved in Hookplane${decidedBy ? ` by ${decidedBy}` : ""}`;
        return withContext({ permissionDecision: "allow", permissionDecisionReason: why && !timedOut ? `${said}: ${why}` : said });
      }
      return withContext();
    case "UserPromptSubmit":
      return result.verdict === "block" ? { decision: "block", reason, ...withContext() } : withContext();
    case "SessionStart":
      return result.verdict === "allow" ? withContext() : { continue: false, stopReason: reason, ...withContext() };
    case "PostToolUse":
      return withContext();
    default:
      return {};
  }
}
