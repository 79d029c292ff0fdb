/**
 * The table the coding agents' importer and exporter both read (agent-hooks-import.ts,
 * agent-hooks-export.ts): per agent, its event names, how a hook entry is written (nested under a
 * matcher group or flat), its command field and its timeout's unit.
 */
import type { EventName } from "@/lib/core/hooks/events";

export type AgentHooksDialect = "codex" | "gemini-cli" | "copilot" | "cursor";

interface AgentHooksFormat {
  name: string;
  /** Claude-style groups `{matcher, hooks: [...]}` or flat entries. */
  nested: boolean;
  commandField: "command" | "bash";
  timeoutField: "timeout" | "timeoutSec";
  /** Milliseconds per unit of the timeout field. */
  timeoutUnitMs: number;
  defaultTimeoutMs: number;
  /** Writes `version: 1` (and expects it). */
  versioned: boolean;
  /** Native event → canonical event, or why it has none. */
  events: Record<string, EventName | { none: string }>;
  /** Native events whose matcher is a tool name (nested formats). */
  toolEvents: ReadonlySet<string>;
  /** Canonical event → the native event an export writes. */
  exportEvents: Partial<Record<EventName, string>>;
  /** Bridged whenever anything is: the session's run starts, gets its cost, and ends. */
  sessionEvents: readonly string[];
}

const none = (why: string) => ({ none: why });

export const AGENT_HOOKS_FORMATS: Record<AgentHooksDialect, AgentHooksFormat> = {
  codex: {
    name: "Codex",
    nested: true,
    commandField: "command",
    timeoutField: "timeout",
    timeoutUnitMs: 1000,
    defaultTimeoutMs: 600_000,
    versioned: false,
    events: {
      PreToolUse: "tool.pre",
      PostToolUse: "tool.post",
      UserPromptSubmit: "user.prompt.submit",
      SessionStart: "session.start",
      SessionEnd: "session.end",
      Stop: "turn.end",
      SubagentStart: "agent.start",
      SubagentStop: "agent.stop",
      PermissionRequest: none("a PermissionRequest hook answers Codex's approval prompt; in Hookplane an approve hook on tool.pre answers it"),
      PreCompact: none("Hookplane has no compaction event"),
      PostCompact: none("Hookplane has no compaction event"),
      Notification: none("Hookplane has no event hooks bind to for notifications"),
    },
    toolEvents: new Set(["PreToolUse", "PostToolUse", "PermissionRequest"]),
    exportEvents: { "tool.pre": "PreToolUse", "tool.post": "PostToolUse", "user.prompt.submit": "UserPromptSubmit", "session.start": "SessionStart", "session.end": "SessionEnd", "turn.end": "Stop", "agent.start": "SubagentStart", "agent.stop": "SubagentStop" },
    sessionEvents: ["SessionStart", "Stop", "SessionEnd"],
  },
  "gemini-cli": {
    name: "Gemini CLI",
    nested: true,
    commandField: "command",
    timeoutField: "timeout",
    timeoutUnitMs: 1,
    defaultTimeoutMs: 60_000,
    versioned: false,
    events: {
      BeforeTool: "tool.pre",
      AfterTool: "tool.post",
      BeforeAgent: "user.prompt.submit",
      AfterAgent: "turn.end",
      SessionStart: "session.start",
      SessionEnd: "session.end",
      BeforeModel: "model.pre",
      AfterModel: "model.post",
      BeforeToolSelection: none("Hookplane has no event for choosing the tools offered"),
      Notification: none("Hookplane has no event hooks bind to for notifications"),
      PreCompress: none("Hookplane has no compaction event"),
    },
    toolEvents: new Set(["BeforeTool", "AfterTool"]),
    exportEvents: { "tool.pre": "BeforeTool", "tool.post": "AfterTool", "user.prompt.submit": "BeforeAgent", "turn.end": "AfterAgent", "session.start": "SessionStart", "session.end": "SessionEnd", "model.pre": "BeforeModel", "model.post": "AfterModel" },
    sessionEvents: ["SessionStart", "AfterAgent", "SessionEnd"],
  },
  copilot: {
    name: "Copilot CLI",
    nested: false,
    commandField: "bash",
    timeoutField: "timeoutSec",
    timeoutUnitMs: 1000,
    defaultTimeoutMs: 30_000,
    versioned: true,
    events: {
      preToolUse: "tool.pre",
      postToolUse: "tool.post",
      userPromptSubmitted: "user.prompt.submit",
      sessionStart: "session.start",
      sessionEnd: "session.end",
      agentStop: "turn.end",
      subagentStop: "agent.stop",
      errorOccurred: "error",
      permissionRequest: none("a permissionRequest hook answers Copilot's permission flow; in Hookplane an approve hook on tool.pre answers it"),
      notification: none("Hookplane has no event hooks bind to for notifications"),
    },
    toolEvents: new Set(),
    exportEvents: { "tool.pre": "preToolUse", "tool.post": "postToolUse", "user.prompt.submit": "userPromptSubmitted", "session.start": "sessionStart", "session.end": "sessionEnd", "turn.end": "agentStop", "agent.stop": "subagentStop", error: "errorOccurred" },
    sessionEvents: ["sessionStart", "agentStop", "sessionEnd"],
  },
  cursor: {
    name: "Cursor",
    nested: false,
    commandField: "command",
    timeoutField: "timeout",
    timeoutUnitMs: 1000,
    defaultTimeoutMs: 30_000,
    versioned: true,
    events: {
      beforeShellExecution: "tool.pre",
      beforeMCPExecution: "tool.pre",
      beforeReadFile: "tool.pre",
      afterShellExecution: "tool.post",
      afterFileEdit: "tool.post",
      beforeSubmitPrompt: "user.prompt.submit",
      stop: "turn.end",
      sessionStart: "session.start",
      sessionEnd: "session.end",
    },
    toolEvents: new Set(),
    exportEvents: { "tool.pre": "beforeShellExecution", "tool.post": "afterShellExecution", "user.prompt.submit": "beforeSubmitPrompt", "turn.end": "stop", "session.start": "sessionStart", "session.end": "sessionEnd" },
    sessionEvents: ["stop"],
  },
};

/** Cursor's gates each stand for one kind of tool call (the bridge's tool names). */
export const CURSOR_TOOL: Record<string, string> = { beforeShellExecution: "Shell", afterShellExecution: "Shell", beforeReadFile: "Read", afterFileEdit: "Edit" };
/** Cursor's tool.pre hooks are bridged on every gate: a guard must see shell, MCP and file reads. */
export const CURSOR_GATES = ["beforeShellExecution", "beforeMCPExecution", "beforeReadFile"];
