/**
 * The dialect layer's public surface: import any of the six foreign hook configs (and Hookplane's
 * own) into canonical agents/hooks/schedules, export canonical config back out, and detect which
 * dialect a text is. Pure functions: no database, no Next.
 */
import { exportAgentHooks } from "./agent-hooks-export";
import { importAgentHooks } from "./agent-hooks-import";
import { exportClaudeCode } from "./claude-code-export";
import { importClaudeCode } from "./claude-code-import";
import { DialectExportError } from "./dialect-error";
import { importAgentopology } from "./agentopology";
import { exportHerdctl } from "./herdctl-export";
import { importHerdctl } from "./herdctl-import";
import { exportHookplane } from "./hookplane-export";
import { importHookplane } from "./hookplane-import";
import { exportLoom } from "./loom-export";
import { importLoom } from "./loom-import";
import { importStandardAgents } from "./standard-agents";
import { exportTailoredAi } from "./tailored-ai-export";
import { importTailoredAi } from "./tailored-ai-import";
import type { DialectConfig, DialectName, ExportOptions, ExportResult, ImportOptions, ImportResult, SourceFiles } from "./types";

export { detectDialect, type DialectDetection } from "./detect";
export { DialectExportError, DialectParseError, type DialectIssue } from "./dialect-error";
export * from "./types";

/**
 * Read `content` written in `dialect`. Throws DialectParseError (issues with paths and lines)
 * when the content is malformed; everything read but not carried over is in `warnings`.
 * Standard Agents also takes a map of file path → source.
 */
export function importConfig(dialect: DialectName, content: string | SourceFiles, options: ImportOptions = {}): ImportResult {
  if (dialect === "standard-agents") return importStandardAgents(content, options);
  if (typeof content !== "string") {
    throw new TypeError(`${dialect} config is one text; only standard-agents takes a map of files`);
  }
  switch (dialect) {
    case "hookplane":
      return importHookplane(content, options);
    case "claude-code":
      return importClaudeCode(content, options);
    case "herdctl":
      return importHerdctl(content, options);
    case "loom":
      return importLoom(content, options);
    case "tailored-ai":
      return importTailoredAi(content, options);
    case "agentopology":
      return importAgentopology(content, options);
    case "codex":
    case "gemini-cli":
    case "copilot":
    case "cursor":
      return importAgentHooks(dialect, content, options);
  }
}

/** Write canonical config as `dialect`; what the dialect cannot express comes back as warnings. */
export function exportConfig(dialect: DialectName, config: DialectConfig, options: ExportOptions = {}): ExportResult {
  switch (dialect) {
    case "hookplane":
      return exportHookplane(config, options);
    case "claude-code":
      return exportClaudeCode(config, options);
    case "herdctl":
      return exportHerdctl(config, options);
    case "loom":
      return exportLoom(config, options);
    case "tailored-ai":
      return exportTailoredAi(config, options);
    case "codex":
    case "gemini-cli":
    case "copilot":
    case "cursor":
      return exportAgentHooks(dialect, config, options);
    case "agentopology":
    case "standard-agents":
      throw new DialectExportError(dialect, "this dialect can be imported but not exported");
  }
}
