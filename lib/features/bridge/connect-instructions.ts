/**
 * What connecting a coding agent to a Hookplane agent takes, per coding agent: the `hookplane`
 * command on PATH, the machine signed in as its person, and the agent's exported hook file pasted
 * where the coding agent reads its hooks. Plain data and strings, so the connect page and its
 * tests read the same steps (docs/coding-agents.md and docs/bridges/ say the same in prose).
 */
import { z } from "zod";
import type { ExportDialectName } from "@/lib/core/dialects/types";

/** The coding agents the bridge speaks: each is an export dialect, an ingest endpoint and a run `source`. */
export const CODING_AGENTS = ["claude-code", "codex", "gemini-cli", "copilot", "cursor"] as const satisfies readonly ExportDialectName[];
export type CodingAgent = (typeof CODING_AGENTS)[number];

/** A hook file the coding agent reads: the project's (shared with the team in git) or the person's own. */
export interface HookFile {
  path: string;
  /** `project`: this repository only; `user`: every project of this OS user. */
  reach: "project" | "user";
  /** What the coding agent asks before it runs hooks from this file. */
  note?: string;
}

export interface CodingAgentGuide {
  label: string;
  files: HookFile[];
  /** When the pasted hooks take effect. */
  takesEffect: string;
}

// Locations from each coding agent's own documentation (docs/bridges/other-agents.md, Settings;
// the real CLIs' recorded runs in test/fixtures/bridges/*/SOURCE.md). Copilot CLI reads hooks
// from the repository only.
export const CODING_AGENT_GUIDES: Record<CodingAgent, CodingAgentGuide> = {
  "claude-code": {
    label: "Claude Code",
    files: [
      { path: ".claude/settings.json", reach: "project" },
      { path: "~/.claude/settings.json", reach: "user" },
    ],
    takesEffect: "Claude Code reads its hooks when a session starts: start a new one. Hooks changed under a running session wait for your review in its /hooks menu.",
  },
  codex: {
    label: "Codex",
    files: [
      { path: ".codex/hooks.json", reach: "project", note: "Codex loads a project's hooks once the project is trusted, and asks you to review new hooks in /hooks (or run with --dangerously-bypass-hook-trust)." },
      { path: "~/.codex/hooks.json", reach: "user", note: "Codex asks you to review new hooks in /hooks before they run." },
    ],
    takesEffect: "Start a new Codex session.",
  },
  "gemini-cli": {
    label: "Gemini CLI",
    files: [
      {
        path: ".gemini/settings.json",
        reach: "project",
        note: "Gemini CLI runs a project's hooks only in a trusted folder. In GitHub Actions it hides HOOKPLANE_TOKEN from its hooks: store the credential first with `hookplane login --with-token`.",
      },
      { path: "~/.gemini/settings.json", reach: "user" },
    ],
    takesEffect: "Start a new Gemini CLI session.",
  },
  copilot: {
    label: "Copilot CLI",
    files: [{ path: ".github/hooks/hookplane.json", reach: "project", note: "Copilot CLI loads a repository's hooks once you trust its folder." }],
    takesEffect: "Start a new Copilot CLI session in the repository.",
  },
  cursor: {
    label: "Cursor",
    files: [
      { path: ".cursor/hooks.json", reach: "project" },
      { path: "~/.cursor/hooks.json", reach: "user" },
    ],
    // Cursor's bridge has no session start to send: a session is recorded at its first gate or turn end.
    takesEffect: "Restart Cursor so it reads hooks.json. Its first event arrives at the first step the file bridges (a shell command, file read or MCP call) or at the end of the agent's first turn.",
  },
};

/** A `?agent=` from the URL, or Claude Code (the most used) when it is missing or not one of ours. */
export const codingAgentQuerySchema = z.enum(CODING_AGENTS).catch("claude-code");

export function codingAgentOf(value: string | string[] | undefined): CodingAgent {
  return codingAgentQuerySchema.parse(Array.isArray(value) ? value[0] : value);
}

/** The commands of the steps before the hook file, each a block the person copies as a whole. */
export interface ConnectCommands {
  /** Puts `hookplane` on PATH, from a checkout of Hookplane (the package is not published). */
  install: string;
  /** Signs this machine in as the person: a device code approved in the browser. */
  login: string;
  /** For CI and machines nobody signs in on: a bridge credential from Settings in the environment. */
  headless: string;
}

const trimmed = (url: string) => url.replace(/\/+$/, "");

export function connectCommands(publicUrl: string): ConnectCommands {
  const url = trimmed(publicUrl);
  return {
    install: "npm link\nhookplane --help",
    login: `hookplane login --url ${url}`,
    headless: `export HOOKPLANE_URL=${url}\nexport HOOKPLANE_TOKEN=<a bridge credential from Settings>`,
  };
}

/**
 * The agent's real export for the coding agent (GET /api/v1/config/export), with its sessions
 * bridged even before any hook needs them, so the first session shows up at once.
 */
export function exportPath(codingAgent: CodingAgent, agentName: string): string {
  return `/api/v1/config/export?${new URLSearchParams({ dialect: codingAgent, agent: agentName, sessions: "true" })}`;
}

/** The connect page of an agent for one coding agent: a URL to share. */
export function connectPagePath(agentId: string, codingAgent: CodingAgent): string {
  return `/agents/${encodeURIComponent(agentId)}/connect?agent=${codingAgent}`;
}

/** One of the export's warnings (X-Hookplane-Warnings). */
export interface ExportWarning {
  path: string;
  message: string;
}

/**
 * The export's warnings a person pasting the file needs: what the coding agent cannot express of
 * the hooks it carries (paths `hooks.<id>…`, or `hooks["<id>"]…` for an id that is not a bare key).
 * Left out: the file-wide ones, which say what this page already does (the file defines no
 * agents; the bridge needs the CLI and a credential), and where a hook belongs (`….scope`: the
 * project's other agents' hooks are not this agent's to carry) or that a disabled one stays out.
 */
export function hookNotes(warnings: ExportWarning[]): ExportWarning[] {
  const aboutAHook = (path: string) => path.startsWith("hooks.") || path.startsWith("hooks[");
  return warnings.filter((w) => aboutAHook(w.path) && !w.path.endsWith(".scope") && !w.path.endsWith(".enabled"));
}
