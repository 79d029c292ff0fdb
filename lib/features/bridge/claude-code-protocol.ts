/**
 * Claude Code's hook protocol, both ways: its stdin JSON becomes a Hookplane session event, and a
 * dispatch result becomes the JSON output Claude Code reads (exit code 0 always: a deny is said in
 * JSON, which Claude Code treats like exit 2 but with a structured reason). Recorded payloads of
 * Claude Code 2.1.197 are in test/fixtures/bridges/claude-code; docs/bridges/claude-code.md has the
 * table of every event.
 *
 * Every event keeps every field Claude Code sent: the canonical fields (toolName, prompt, ...) are
 * named as the hook model names them, and the rest stays as sent under `claudeCode` (with the event
 * name), so `when: "claudeCode.permission_mode: /plan/"` works and nothing is lost. Events a
 * subagent sent carry `agentId` and `agentType` (Claude Code's `agent_id`, `agent_type`).
 */
import { z } from "zod";
import type { DispatchResult } from "@/lib/core/hooks/runtime-types";
import type { SessionEvent } from "./session-ingest";
import { transcriptUsageSchema } from "./transcript-usage";
import { localHookBlocksSchema } from "./local-hook-outcomes";

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
  error: z.unknown().optional(),
  duration_ms: z.number().min(0).optional(),
  agent_id: z.string().optional(),
  agent_type: z.string().optional(),
  stop_hook_active: z.boolean().optional(),
  last_assistant_message: z.string().optional(),
  /** Added by `hookplane hook claude-code` at turn ends: the transcript's usage per message. */
  hookplane_usage: transcriptUsageSchema.optional(),
  /** Added at turn ends too: what the developer's own hooks blocked on their machine (local-hook-outcomes.ts). */
  hookplane_local_blocks: localHookBlocksSchema.optional(),
  /**
   * Added by `hookplane hook claude-code` when another agent that speaks this protocol ran the
   * hook, as its environment says (Qwen Code sets QWEN_CODE_SESSION_ID to the payload's session):
   * what that agent applies of an answer is its own (modification-support.ts).
   */
  hookplane_runtime: z.enum(["qwen-code"]).optional(),
});
export type ClaudeHookInput = z.infer<typeof claudeHookInputSchema>;

/** Events about one tool call: without a tool name they are not Claude Code talking. */
const TOOL_EVENTS = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied", "PreSkillShellCommand"]);

/** Say at the field what a Claude Code payload lacks. */
export function claudeInputIssues(input: ClaudeHookInput): { path: string; message: string }[] {
  return TOOL_EVENTS.has(input.hook_event_name) && !input.tool_name ? [{ path: "tool_name", message: `${input.hook_event_name} needs tool_name` }] : [];
}

function isError(response: unknown): boolean {
  if (!response || typeof response !== "object") return false;
  const r = response as Record<string, unknown>;
  return r.is_error === true || r.success === false || (typeof r.error === "string" && r.error.length > 0);
}

/** SessionEnd's `reason` → the run's outcome. Only a session Claude Code itself refused to go on is not completed. */
export function sessionEndOutcome(reason: string | undefined): "completed" | "cancelled" {
  return reason === "bypass_permissions_disabled" ? "cancelled" : "completed";
}

/** What Hookplane does with each event; the docs table and the tests read this one list. */
export const CLAUDE_EVENTS = {
  SessionStart: "session.start on startup, clear and fork (a fork is a new session, under a new id, carrying another's transcript: a run of its own); resume and compact are recorded (session.resume, session.compact) in the same run",
  Setup: "recorded (claude-code.Setup)",
  UserPromptSubmit: "user.prompt.submit",
  UserPromptExpansion: "recorded (claude-code.UserPromptExpansion)",
  PreToolUse: "tool.pre",
  PermissionRequest: "tool.permission_request, with the toolCallId of the call its PreToolUse announced (it sends none); only `approve` hooks of tool.pre answer it (an approval already decided for the call answers at once)",
  PermissionDenied: "recorded (claude-code.PermissionDenied)",
  PostToolUse: "tool.post (isError from the response, durationMs)",
  PostToolUseFailure: "tool.post with isError true, error and durationMs",
  PostToolBatch: "recorded (tool.batch)",
  Notification: "recorded (notification)",
  SubagentStart: "agent.start with agentName = agent_type",
  SubagentStop: "agent.stop with agentName = agent_type",
  Stop: "turn.end",
  StopFailure: "error (the turn ended on an API error)",
  PreCompact: "recorded (claude-code.PreCompact)",
  PostCompact: "recorded (claude-code.PostCompact)",
  SessionEnd: "session.end, outcome from reason; finishes the run",
  PreSkillShellCommand: "tool.pre (a skill's `!command` shell line, toolName Bash or PowerShell): tool.pre hooks decide it like a Bash call, so a Bash guard holds for skills too; `command_name`, `command_source` and `invoked_by` are kept under claudeCode",
  PreModelSwitch: "recorded (claude-code.PreModelSwitch: from_model, to_model, source)",
  PostModelSwitch: "recorded (claude-code.PostModelSwitch)",
  DirectoryAdded: "recorded (claude-code.DirectoryAdded: directory, source)",
} as const;


/** The fields not already named canonically, as Claude Code sent them. */
function rest(input: ClaudeHookInput, used: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([key, value]) => value !== undefined && !NAMED_ELSEWHERE.has(key) && !used.includes(key)));
}
/** Fields every event names in its own place (the session, the agent, the CLI's own additions). */
const NAMED_ELSEWHERE: ReadonlySet<string> = new Set(["session_id", "cwd", "agent_id", "agent_type", "hookplane_usage", "hookplane_local_blocks", "hookplane_runtime"]);

/** A runtime that speaks Claude Code's hook protocol: Claude Code itself, and Codex (whose hooks copy it). */
export interface ClaudeDialectRuntime {
  /** `runs.source`, and the prefix of events recorded as they are. */
  source: string;
  name: string;
  /** Where the fields without a canonical name are kept. */
  field: string;
}
export const CLAUDE_CODE_RUNTIME: ClaudeDialectRuntime = { source: "claude-code", name: "Claude Code", field: "claudeCode" };
export const CODEX_RUNTIME: ClaudeDialectRuntime = { source: "codex", name: "Codex", field: "codex" };

export function claudeSessionEvent(agent: string, input: ClaudeHookInput, runtime: ClaudeDialectRuntime = CLAUDE_CODE_RUNTIME): SessionEvent {
  const title = `${runtime.name} session ${input.session_id.slice(0, 8)}${input.cwd ? ` in ${input.cwd}` : ""}`;
  // The data in this order: cwd, the canonical agent fields, the event's own, the rest as sent, via.
  // Grown member by member from a literal: every hook call maps one, and on Node 20 a literal that
  // opens with a spread costs about a microsecond per member after it (docs/how-it-works.md).
  const eventData = (own: Record<string, unknown>, used: readonly string[]) => {
    const data: Record<string, unknown> = input.cwd !== undefined ? { cwd: input.cwd } : {};
    if (input.agent_id !== undefined) {
      data.agentId = input.agent_id;
      data.agentType = input.agent_type ?? "";
    }
    Object.assign(data, own); // the mapping's own fields: keys of this file, never the input's
    data[runtime.field] = rest(input, used);
    if (input.hookplane_runtime) data.via = input.hookplane_runtime;
    return data;
  };
  const event = (type: string, data: Record<string, unknown>, used: readonly string[], extra: Partial<SessionEvent> = {}): SessionEvent => ({
    agent,
    sessionId: input.session_id,
    source: runtime.source,
    title,
    type,
    data: eventData(data, used),
    ...(input.hookplane_usage ? { usage: input.hookplane_usage } : {}),
    ...(input.hookplane_local_blocks?.length ? { localBlocks: input.hookplane_local_blocks } : {}),
    ...extra,
  });
  const tool = { toolName: input.tool_name, toolInput: input.tool_input ?? {}, toolCallId: input.tool_use_id };
  const toolFields = ["tool_name", "tool_input", "tool_use_id"];
  // A subagent is named by its type; the compaction's own subagent has an empty one.
  const agentName = input.agent_type || "subagent";
  switch (input.hook_event_name) {
    case "SessionStart":
      // startup (and clear, a new conversation) start the session; resume and compact continue it.
      // A fork (2.1.332) carries another session's transcript under a new session id: a new run,
      // so its session.start hooks run (source "fork" says where it came from).
      if (input.source === "resume" || input.source === "compact") return event(`session.${input.source}`, { source: input.source }, ["source"], { continues: true });
      return event("session.start", { source: input.source ?? "startup", prompt: "" }, ["source"]);
    case "UserPromptSubmit":
      // Qwen Code 0.24 (which speaks this protocol) fires it again before each model call that
      // sends tool results back, with an empty prompt: no one typed anything, so it is recorded as
      // sent and no prompt hook runs again. Told apart by Qwen's `timestamp` (Claude Code sends
      // none), so a Claude Code prompt of an image alone still goes to the prompt hooks.
      if (input.prompt === "" && typeof input.timestamp === "string") return event(`${runtime.source}.UserPromptSubmit`, { continuation: true }, []);
      return event("user.prompt.submit", { prompt: input.prompt ?? "" }, ["prompt"]);
    case "PreToolUse":
      return event("tool.pre", tool, toolFields);
    // A skill's shell line runs Bash (or PowerShell) without a tool call: the same guard decides it.
    case "PreSkillShellCommand":
      return event("tool.pre", tool, toolFields);
    case "PermissionRequest":
      // Claude Code 2.1.197 sends no tool_use_id here: the call is the one its PreToolUse announced.
      return event("tool.permission_request", tool, toolFields, { dispatch: { as: "tool.pre", only: ["approve"] }, callByInput: true });
    case "PostToolUse":
      return event(
        "tool.post",
        { toolName: tool.toolName, toolInput: tool.toolInput, toolCallId: tool.toolCallId, output: input.tool_response, isError: isError(input.tool_response), ...(input.duration_ms !== undefined ? { durationMs: input.duration_ms } : {}) },
        [...toolFields, "tool_response", "duration_ms"],
      );
    case "PostToolUseFailure": {
      const error = typeof input.error === "string" ? input.error : JSON.stringify(input.error ?? "the tool failed");
      return event(
        "tool.post",
        { toolName: tool.toolName, toolInput: tool.toolInput, toolCallId: tool.toolCallId, output: error, error, isError: true, ...(input.duration_ms !== undefined ? { durationMs: input.duration_ms } : {}) },
        [...toolFields, "error", "duration_ms"],
      );
    }
    case "PostToolBatch":
      return event("tool.batch", { toolCalls: input.tool_calls ?? [] }, ["tool_calls"]);
    case "Notification":
      return event("notification", { message: input.message ?? "" }, ["message"]);
    case "SubagentStart":
      return event("agent.start", { agentName }, []);
    case "SubagentStop":
      return event("agent.stop", { agentName, stopHookActive: input.stop_hook_active ?? false, response: input.last_assistant_message }, ["stop_hook_active", "last_assistant_message"]);
    case "Stop":
      return event("turn.end", { stopHookActive: input.stop_hook_active ?? false, response: input.last_assistant_message }, ["stop_hook_active", "last_assistant_message"]);
    case "StopFailure": {
      const message = typeof input.error === "string" ? input.error : JSON.stringify(input.error ?? "the turn ended on an API error");
      return event("error", { message }, ["error"]);
    }
    case "SessionEnd":
      return event("session.end", { outcome: sessionEndOutcome(input.reason), reason: input.reason ?? "session ended" }, ["reason"]);
    // Codex 0.171: the person interrupted the turn (e.g. Ctrl-C in `codex exec`, which then ends
    // the session: session-ingest ends such a run cancelled). Its answer may carry only
    // `systemMessage` (codex-rs/hooks/src/events/interrupt.rs): Hookplane's is {}.
    case "Interrupt":
      if (runtime.source !== CODEX_RUNTIME.source) return event(`${runtime.source}.${input.hook_event_name}`, {}, []);
      return event("turn.interrupted", { ...(typeof input.turn_id === "string" ? { turnId: input.turn_id } : {}), reason: "interrupted by the user" }, ["turn_id"]);
    default:
      return event(`${runtime.source}.${input.hook_event_name}`, {}, []);
  }
}

export type ClaudeHookOutput = {
  continue?: boolean;
  stopReason?: string;
  decision?: "block";
  reason?: string;
  hookSpecificOutput?: {
    hookEventName: string;
    permissionDecision?: "allow" | "deny" | "ask";
    permissionDecisionReason?: string;
    additionalContext?: string;
    decision?: { behavior: "allow" | "deny"; message?: string; updatedInput?: Record<string, unknown> };
    /** PreToolUse: the whole input the tool runs with (Hookplane's hooks or an approver changed it). */
    updatedInput?: Record<string, unknown>;
    /** PostToolUse: what the model sees instead of the tool's output (2.1.332; MCP tools also take updatedMCPToolOutput). */
    updatedToolOutput?: unknown;
    updatedMCPToolOutput?: unknown;
  };
};

function additionalContext(result: DispatchResult): string | undefined {
  // On a block the reason is said on its own; the rest of what hooks had to say still goes along.
  const texts = result.verdict === "block" ? [...result.context, ...(result.output ? [result.output] : [])] : result.reminders;
  return texts.length > 0 ? texts.join("\n\n") : undefined;
}

/** Events whose answer may carry `hookSpecificOutput.additionalContext`. */
const CONTEXT_EVENTS = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart", "SubagentStart", "Setup"]);

function approvedBy(result: DispatchResult): string | undefined {
  if (result.approval?.decision !== "approve") return undefined;
  const { decidedBy, reason: why, timedOut } = result.approval;
  const said = timedOut ? "allowed in Hookplane: nobody decided in time" : `approved in Hookplane${decidedBy ? ` by ${decidedBy}` : ""}`;
  return why && !timedOut ? `${said}: ${why}` : said;
}

/**
 * Claude Code's answer. A plain allow is `{}` (Claude Code's own permission rules still apply);
 * only a person's approval returns an allow, since a person just said yes.
 */
export function claudeHookOutput(hookEventName: string, result: DispatchResult | undefined, toolName?: string): ClaudeHookOutput {
  if (!result) return {};
  const context = CONTEXT_EVENTS.has(hookEventName) ? additionalContext(result) : undefined;
  const reason = result.reason ?? "Blocked by a Hookplane hook";
  const withContext = (extra: Partial<NonNullable<ClaudeHookOutput["hookSpecificOutput"]>> = {}): ClaudeHookOutput => {
    const specific = { ...extra, ...(context ? { additionalContext: context } : {}) };
    return Object.keys(specific).length > 0 ? { hookSpecificOutput: { hookEventName, ...specific } } : {};
  };
  switch (hookEventName) {
    // PreSkillShellCommand answers like PreToolUse (it takes no additionalContext, so none is added).
    case "PreSkillShellCommand":
    case "PreToolUse": {
      if (result.verdict === "block") return withContext({ permissionDecision: "deny", permissionDecisionReason: reason });
      const approved = approvedBy(result);
      const updatedInput = result.toolInput;
      // An `ask` hook: Claude Code asks its user, showing the call as Hookplane's hooks left it.
      if (result.askUser) return withContext({ permissionDecision: "ask", permissionDecisionReason: result.askUser.reason, ...(updatedInput && { updatedInput }) });
      // A rewritten call runs as rewritten: Claude Code applies updatedInput with an allow.
      if (updatedInput) return withContext({ permissionDecision: "allow", permissionDecisionReason: approved ?? `input rewritten in Hookplane by hook ${(result.modifiedBy ?? []).join(", ")}`, updatedInput });
      return approved ? withContext({ permissionDecision: "allow", permissionDecisionReason: approved }) : withContext();
    }
    case "PermissionRequest": {
      if (result.verdict === "block") return { hookSpecificOutput: { hookEventName, decision: { behavior: "deny", message: reason } } };
      // No approve hook decided: Claude Code asks its user as it would have.
      return approvedBy(result) ? { hookSpecificOutput: { hookEventName, decision: { behavior: "allow", ...(result.toolInput && { updatedInput: result.toolInput }) } } } : {};
    }
    case "PostToolUse": {
      if (!result.toolOutput) return withContext();
      const value = result.toolOutput.value;
      return withContext({ updatedToolOutput: value, ...(toolName?.startsWith("mcp__") && { updatedMCPToolOutput: value }) });
    }
    // Claude Code takes no replaced output for a failed call (updatedToolOutput is PostToolUse's
    // only, 2.1.332): the error has reached the model, so the most its answer can do is tell it
    // that the hooks withheld it, and what they put in its place.
    case "PostToolUseFailure": {
      if (!result.toolOutput) return withContext();
      const replaced = typeof result.toolOutput.value === "string" ? result.toolOutput.value : JSON.stringify(result.toolOutput.value);
      const note = `Hookplane hook ${(result.modifiedBy ?? []).join(", ") || "policy"} withheld this failed call's error output (Claude Code cannot replace it): do not use or repeat it. In its place: ${replaced}`;
      return { hookSpecificOutput: { hookEventName, additionalContext: context ? `${context}\n\n${note}` : note } };
    }
    case "UserPromptSubmit":
      return result.verdict === "block" ? { decision: "block", reason, ...withContext() } : withContext();
    case "SessionStart":
      return result.verdict === "allow" ? withContext() : { continue: false, stopReason: reason, ...withContext() };
    // A block on a turn's end keeps Claude (or the subagent) working, the reason its next instruction.
    case "Stop":
    case "SubagentStop":
      return result.verdict === "block" ? { decision: "block", reason } : {};
    default:
      return withContext();
  }
}

/**
 * Codex's answer: Claude Code's, less what Codex refuses (0.169 fails a PreToolUse hook that
 * answers `permissionDecision: "allow"` or context): a person's yes there is a plain `{}`, and
 * Codex's own approval policy then applies.
 */
export function codexHookOutput(hookEventName: string, result: DispatchResult | undefined): ClaudeHookOutput {
  const answer = claudeHookOutput(hookEventName, result);
  if (hookEventName !== "PreToolUse" || !answer.hookSpecificOutput) return answer;
  const { permissionDecision, permissionDecisionReason } = answer.hookSpecificOutput;
  return permissionDecision === "deny" ? { hookSpecificOutput: { hookEventName, permissionDecision, permissionDecisionReason } } : {};
}
