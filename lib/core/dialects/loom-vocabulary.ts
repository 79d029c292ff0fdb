/** What the loom importer and exporter share: its names, defaults and mappings. */
import { type EventName } from "@/lib/core/hooks/events";

export const BUCKET_EVENTS: Record<string, EventName> = {
  onStart: "session.start",
  onToolCall: "tool.pre",
  onToolEnd: "tool.post",
  onModelCall: "model.pre",
  onModelEnd: "model.post",
  onComplete: "session.end",
  onError: "error",
};

export const COMMAND_TIMEOUT_MS = 5_000;

export const HITL_TIMEOUT_MS = 30 * 60 * 1000;

/** Loom's default when a profile names no model. */
export const LOOM_DEFAULT_MODEL = "openai:gpt-5.5";

/** Loom's own defaults (its profile schema): a profile that leaves them out runs with these. */
export const LOOM_DEFAULT_MAX_TURNS = 100;

export const LOOM_DEFAULT_TIMEOUT = "30m";

/**
 * Loom's tool presets as its assembler builds them (ownware packages/cortex/src/profile/assembler.ts
 * at 31f57a3): `coding` is the filesystem and shell tools, request_credential and the plan tools;
 * `readonly` the filesystem tools that only read. A profile with subagents gets agent_spawn and
 * orchestrate on top. `full` is every built-in tool (`["*"]`), `none` none.
 */
export const LOOM_PRESET_TOOLS: Record<string, readonly string[]> = {
  coding: ["readFile", "writeFile", "editFile", "listFiles", "glob", "grep", "shell_execute", "request_credential", "plan_draft", "plan_submit"],
  readonly: ["readFile", "listFiles", "glob", "grep"],
};
export const LOOM_SUBAGENT_TOOLS = ["agent_spawn", "orchestrate"] as const;
export const LOOM_PLAN_TOOLS = ["plan_draft", "plan_submit"] as const;

/** Loom's tool-name glob (tool-policy.ts matchesGlob): `*` any run, `.` a dot or an underscore, whole name. */
export function loomToolGlob(pattern: string): (name: string) => boolean {
  if (pattern === "*") return () => true;
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\\\./g, "[._]")
    .replace(/\*/g, ".*");
  const re = new RegExp(`^${source}$`);
  return (name) => name === pattern || re.test(name);
}
