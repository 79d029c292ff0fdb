/**
 * Cursor's agent hook protocol (`.cursor/hooks.json`, version 1), both ways. Cursor has no CLI that
 * runs here, so this follows its published hooks reference (payload fixtures in
 * test/fixtures/bridges/cursor say where each field comes from). A conversation is a session
 * (`conversation_id`); every field stays as sent under `cursor`.
 *
 * Cursor's gates answer `permission` (`allow` | `deny` | `ask`) with a `user_message` and an
 * `agent_message`; beforeSubmitPrompt answers `continue`; stop and subagentStop answer a
 * `followup_message`, which Cursor sends as the next prompt (a turn's end that blocks);
 * sessionStart and postToolUse answer `additional_context`.
 *
 * Since Cursor 2, `preToolUse` fires before every tool (Shell, Read, Write, Grep, Delete, Task,
 * `MCP: <tool>`) with a `tool_use_id`, so a file edit (`Write`) is gated before it happens;
 * `postToolUse` / `postToolUseFailure` follow it, and `subagentStart` (which may be denied) /
 * `subagentStop` bracket a Task subagent. A hooks.json that binds both `preToolUse` and a
 * specific gate (beforeShellExecution) dispatches tool.pre twice for one shell call: bind one.
 */
import { z } from "zod";
import type { DispatchResult } from "@/lib/core/hooks/runtime-types";
import type { SessionEvent } from "./session-ingest";

export const cursorHookInputSchema = z.looseObject({
  conversation_id: z.string().min(1).max(300),
  hook_event_name: z.string().min(1).max(100),
  generation_id: z.string().optional(),
  workspace_roots: z.array(z.string()).optional(),
  command: z.string().optional(),
  cwd: z.string().optional(),
  tool_name: z.string().optional(),
  tool_input: z.unknown().optional(),
  file_path: z.string().optional(),
  prompt: z.string().optional(),
  status: z.string().optional(),
  tool_use_id: z.string().optional(),
  subagent_id: z.string().optional(),
  subagent_type: z.string().optional(),
});
export type CursorHookInput = z.infer<typeof cursorHookInputSchema>;

const REQUIRED: Record<string, string> = {
  beforeShellExecution: "command",
  beforeMCPExecution: "tool_name",
  beforeReadFile: "file_path",
  afterFileEdit: "file_path",
  preToolUse: "tool_name",
  postToolUse: "tool_name",
  postToolUseFailure: "tool_name",
};

export function cursorInputIssues(input: CursorHookInput): { path: string; message: string }[] {
  const field = REQUIRED[input.hook_event_name];
  return field && typeof (input as Record<string, unknown>)[field] !== "string" ? [{ path: field, message: `${input.hook_event_name} needs ${field}` }] : [];
}

function rest(input: CursorHookInput, used: readonly string[]): Record<string, unknown> {
  const skip = new Set(["conversation_id", "cwd", ...used]);
  return Object.fromEntries(Object.entries(input).filter(([key, value]) => !skip.has(key) && value !== undefined));
}

/** A duration Cursor reports in milliseconds, when it is one. */
const durationOf = (value: unknown) => (typeof value === "number" && value >= 0 ? { durationMs: value } : {});

/** MCP tool input (and tool output) arrives as JSON text; parsed when it is. */
function parsedInput(value: unknown): unknown {
  if (typeof value !== "string") return value ?? {};
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export function cursorSessionEvent(agent: string, input: CursorHookInput): SessionEvent {
  const where = input.cwd ?? input.workspace_roots?.[0];
  const common = { agent, sessionId: input.conversation_id, source: "cursor", title: `Cursor conversation ${input.conversation_id.slice(0, 8)}${where ? ` in ${where}` : ""}` };
  const event = (type: string, data: Record<string, unknown>, used: readonly string[]): SessionEvent => ({
    ...common,
    type,
    data: { ...(where !== undefined ? { cwd: where } : {}), ...data, cursor: rest(input, used) },
  });
  switch (input.hook_event_name) {
    case "sessionStart":
      return event("session.start", { prompt: "" }, []);
    case "beforeSubmitPrompt":
      return event("user.prompt.submit", { prompt: input.prompt ?? "" }, ["prompt"]);
    case "beforeShellExecution":
      return event("tool.pre", { toolName: "Shell", toolInput: { command: input.command, ...(input.cwd ? { cwd: input.cwd } : {}) } }, ["command"]);
    case "beforeMCPExecution":
      return event("tool.pre", { toolName: input.tool_name, toolInput: parsedInput(input.tool_input) }, ["tool_name", "tool_input"]);
    case "beforeReadFile":
      return event("tool.pre", { toolName: "Read", toolInput: { file_path: input.file_path } }, ["file_path"]);
    case "afterFileEdit":
      return event("tool.post", { toolName: "Edit", toolInput: { file_path: input.file_path, edits: input.edits ?? [] }, output: null, isError: false }, ["file_path", "edits"]);
    case "afterShellExecution":
      return event("tool.post", { toolName: "Shell", toolInput: { command: input.command }, output: input.output ?? null, isError: false }, ["command", "output"]);
    case "afterMCPExecution":
      return event("tool.post", { toolName: input.tool_name, toolInput: parsedInput(input.tool_input), output: parsedInput(input.result_json), isError: false, ...durationOf(input.duration) }, ["tool_name", "tool_input", "result_json"]);
    // The catch-all gate and its results: every tool, named as Cursor names it, with its call's id.
    case "preToolUse":
      return event("tool.pre", { toolName: input.tool_name, toolInput: parsedInput(input.tool_input), toolCallId: input.tool_use_id }, ["tool_name", "tool_input", "tool_use_id"]);
    case "postToolUse":
      return event(
        "tool.post",
        { toolName: input.tool_name, toolInput: parsedInput(input.tool_input), toolCallId: input.tool_use_id, output: parsedInput(input.tool_output), isError: false, ...durationOf(input.duration) },
        ["tool_name", "tool_input", "tool_use_id", "tool_output"],
      );
    case "postToolUseFailure": {
      const error = typeof input.error_message === "string" ? input.error_message : "the tool failed";
      return event(
        "tool.post",
        { toolName: input.tool_name, toolInput: parsedInput(input.tool_input), toolCallId: input.tool_use_id, output: error, error, isError: true, ...durationOf(input.duration) },
        ["tool_name", "tool_input", "tool_use_id", "error_message"],
      );
    }
    // A Task subagent: its events name it (agentId), as Claude Code's subagents do.
    case "subagentStart":
      return event("agent.start", { agentName: input.subagent_type || "subagent", ...(input.subagent_id ? { agentId: input.subagent_id, agentType: input.subagent_type ?? "" } : {}) }, ["subagent_id"]);
    case "subagentStop":
      return event(
        "agent.stop",
        { agentName: input.subagent_type || "subagent", stopHookActive: typeof input.loop_count === "number" && input.loop_count > 0, ...(typeof input.summary === "string" ? { response: input.summary } : {}) },
        ["summary"],
      );
    case "stop":
      return event("turn.end", { stopHookActive: typeof input.loop_count === "number" && input.loop_count > 0 }, []);
    case "sessionEnd":
      return event("session.end", { outcome: "completed", reason: typeof input.reason === "string" ? input.reason : "session ended" }, ["reason"]);
    default:
      return event(`cursor.${input.hook_event_name}`, {}, []);
  }
}

export type CursorHookOutput = {
  permission?: "allow" | "deny";
  user_message?: string;
  agent_message?: string;
  continue?: boolean;
  followup_message?: string;
  additional_context?: string;
};

/** The events whose `permission` Cursor obeys (subagentStart: a Task subagent may be refused). */
export const CURSOR_GATES = new Set(["beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "preToolUse", "subagentStart"]);
/** The events whose `additional_context` Cursor gives the model. */
const CONTEXT_EVENTS = new Set(["sessionStart", "postToolUse"]);

function contextOf(result: DispatchResult): string | undefined {
  return result.reminders.length > 0 ? result.reminders.join("\n\n") : undefined;
}

export function cursorHookOutput(hookEventName: string, result: DispatchResult | undefined): CursorHookOutput {
  if (!result) return {};
  const reason = result.reason ?? "Blocked by a Hookplane hook";
  if (CURSOR_GATES.has(hookEventName)) {
    if (result.verdict === "block") return { permission: "deny", user_message: reason, agent_message: reason };
    return result.approval?.decision === "approve" ? { permission: "allow" } : {};
  }
  if (hookEventName === "beforeSubmitPrompt") return result.verdict === "block" ? { continue: false, user_message: reason } : {};
  if (hookEventName === "stop" || hookEventName === "subagentStop") return result.verdict === "block" ? { followup_message: reason } : {};
  const context = CONTEXT_EVENTS.has(hookEventName) ? contextOf(result) : undefined;
  return context ? { additional_context: context } : {};
}
