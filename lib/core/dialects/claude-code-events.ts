/**
 * Claude Code's hook events and what each is in Hookplane's model, shared by the importer, the
 * exporter and detection. The list is the one Claude Code 2.1.332 validates settings against (read
 * from its binary: the `hooks` keys it accepts; 2.1.197's 30 plus PreModelSwitch, PostModelSwitch,
 * DirectoryAdded and PreSkillShellCommand).
 */
import type { EventName } from "@/lib/core/hooks/events";

export const CLAUDE_CODE_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "Notification",
  "UserPromptSubmit",
  "UserPromptExpansion",
  "SessionStart",
  "SessionEnd",
  "Stop",
  "StopFailure",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "PreModelSwitch",
  "PostModelSwitch",
  "PermissionRequest",
  "PermissionDenied",
  "Setup",
  "TeammateIdle",
  "TaskCreated",
  "TaskCompleted",
  "Elicitation",
  "ElicitationResult",
  "ConfigChange",
  "WorktreeCreate",
  "WorktreeRemove",
  "InstructionsLoaded",
  "CwdChanged",
  "FileChanged",
  "DirectoryAdded",
  "MessageDisplay",
  "PreSkillShellCommand",
] as const;
export type ClaudeCodeEvent = (typeof CLAUDE_CODE_EVENTS)[number];

/** Claude Code event → canonical event, or why a hook on it has no Hookplane counterpart. */
export const CLAUDE_TO_CANONICAL: Record<ClaudeCodeEvent, EventName | { none: string }> = {
  PreToolUse: "tool.pre",
  PostToolUse: "tool.post",
  PostToolUseFailure: "tool.post",
  UserPromptSubmit: "user.prompt.submit",
  SessionStart: "session.start",
  SessionEnd: "session.end",
  Stop: "turn.end",
  StopFailure: "error",
  SubagentStart: "agent.start",
  SubagentStop: "agent.stop",
  PermissionRequest: { none: "a PermissionRequest hook answers Claude Code's permission prompt; in Hookplane an approve hook on tool.pre answers it" },
  PermissionDenied: { none: "Hookplane records a denial (loop.tool_denied) but has no event hooks bind to" },
  PostToolBatch: { none: "Hookplane has no event for a batch of tool calls (each is a tool.post)" },
  Notification: { none: "Hookplane records Claude Code's notifications but has no event hooks bind to" },
  UserPromptExpansion: { none: "Hookplane has no event for a prompt's expansion" },
  PreCompact: { none: "Hookplane has no compaction event (the bridge records compactions)" },
  PostCompact: { none: "Hookplane has no compaction event (the bridge records compactions)" },
  Setup: { none: "Hookplane has no setup event" },
  TeammateIdle: { none: "Hookplane has no agent-team events" },
  TaskCreated: { none: "Hookplane has no agent-team events" },
  TaskCompleted: { none: "Hookplane has no agent-team events" },
  Elicitation: { none: "Hookplane has no MCP elicitation events" },
  ElicitationResult: { none: "Hookplane has no MCP elicitation events" },
  ConfigChange: { none: "Hookplane has no configuration-change event" },
  WorktreeCreate: { none: "Hookplane has no worktree events" },
  WorktreeRemove: { none: "Hookplane has no worktree events" },
  InstructionsLoaded: { none: "Hookplane has no event for loaded instructions" },
  CwdChanged: { none: "Hookplane has no working-directory event" },
  FileChanged: { none: "Hookplane has no file-watch event" },
  MessageDisplay: { none: "Hookplane has no event for displayed messages" },
  // 2.1.332: a switch of the session's model (PreModelSwitch may refuse it), a folder added with
  // /add-dir, and a skill's `!command` shell line (a Bash or PowerShell call that is no tool call).
  PreModelSwitch: { none: "Hookplane has no model-switch event (model.pre is each model call, not a switch of the session's model); the bridge records it" },
  PostModelSwitch: { none: "Hookplane has no model-switch event; the bridge records it" },
  DirectoryAdded: { none: "Hookplane has no event for a folder added to the session (/add-dir); the bridge records it" },
  PreSkillShellCommand: {
    none: "a skill's shell line is not a tool call: on tool.pre the hook would run before every Bash call, not only skills' (the bridge sends skills' shell lines to tool.pre hooks, so a Bash guard holds for them)",
  },
};

/** Events whose matcher is a tool name (or a permission rule such as `Write(docs/**)`). */
export const CLAUDE_TOOL_EVENTS: ReadonlySet<string> = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied", "PreSkillShellCommand"]);
/**
 * Events on which Claude Code ignores `onFailure: "block"` (its schema's own words): a turn's or
 * task's end, where exit 2 means "keep working", not "refuse".
 */
export const CLAUDE_ON_FAILURE_IGNORED: ReadonlySet<string> = new Set(["Stop", "SubagentStop", "TaskCompleted", "TeammateIdle"]);
/** SessionStart's sources (its matcher): 2.1.332 adds `fork` (a session forked from another's transcript, under a new id). */
export const CLAUDE_SESSION_SOURCES = ["startup", "resume", "clear", "compact", "fork"] as const;
/** Events whose matcher is a subagent's type. */
export const CLAUDE_AGENT_EVENTS: ReadonlySet<string> = new Set(["SubagentStart", "SubagentStop"]);
