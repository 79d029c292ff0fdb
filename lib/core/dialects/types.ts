/**
 * The shapes every dialect module shares: what an import produces and what an export consumes.
 * A dialect module translates between one foreign config format and these canonical shapes,
 * and never touches the database or Next: the config import/export endpoints do that.
 */
import type { AgentSpecInput, ScheduleSpecInput } from "@/lib/core/agent/agent-spec";
import type { HookSpecInput } from "@/lib/core/hooks/spec";

export const DIALECT_NAMES = [
  "hookplane",
  "claude-code",
  "herdctl",
  "loom",
  "tailored-ai",
  "agentopology",
  "standard-agents",
  "codex",
  "gemini-cli",
  "copilot",
  "cursor",
] as const;
export type DialectName = (typeof DIALECT_NAMES)[number];

/** Dialects that can also be written, not only read. */
export const EXPORT_DIALECTS = ["hookplane", "claude-code", "herdctl", "loom", "tailored-ai", "codex", "gemini-cli", "copilot", "cursor"] as const;
export type ExportDialectName = (typeof EXPORT_DIALECTS)[number];

/**
 * Something that was read but could not be carried over exactly; `path` points into the source.
 * `enforcement` marks what the import preview lists as not enforced: `not_imported`, a hook (or
 * guard) of the file Hookplane will not run at all; `changed`, one it runs but not as the file
 * says (a condition or a limit dropped, so it is wider or weaker).
 */
export type DialectWarning = { path: string; message: string; enforcement?: "not_imported" | "changed" };

/**
 * A schedule as imported. Its own hooks (scope `schedule:<name>`) live here and NOT in the
 * top-level `hooks` list, so a consumer creates each hook exactly once: after the schedule.
 */
export type ImportedSchedule = ScheduleSpecInput & { name: string; hooks?: HookSpecInput[] };

/** The canonical config: what an importer returns (minus warnings) and what an exporter takes. */
export type DialectConfig = {
  agents: AgentSpecInput[];
  /** Scope "global", "agent:<agent name>" or, for schedules not in `schedules`, "schedule:<name>". */
  hooks: HookSpecInput[];
  schedules: ImportedSchedule[];
};

export type ImportResult = DialectConfig & { warnings: DialectWarning[] };

export type ImportOptions = {
  /** The agent that hooks without an agent of their own belong to (Claude Code settings, Standard Agents). */
  agent?: string;
};

/** Standard Agents hook folders arrive as file path → source text. */
export type SourceFiles = Record<string, string>;

export type ExportOptions = {
  /** Export only this agent (and the global hooks); required where a file describes one agent. */
  agent?: string;
  /** Hookplane's own format only: YAML (default) or JSON. */
  format?: "yaml" | "json";
  /**
   * Claude Code only: how hooks it cannot run itself reach Hookplane: the `hookplane hook
   * claude-code` command (default, fails closed) or Claude Code's `http` hook (fails open).
   */
  bridge?: "command" | "http";
  /** The Hookplane URL an `http` bridge calls (default http://127.0.0.1:3000). */
  hookplaneUrl?: string;
  /**
   * The coding agents' files only: bridge the session events even when no hook needs the bridge,
   * so every session is recorded as a run from the start (an agent being connected, with no hook
   * yet, still shows its sessions, their cost and the first event arriving).
   */
  recordSessions?: boolean;
};

export type ExportResult = { content: string; warnings: DialectWarning[] };
