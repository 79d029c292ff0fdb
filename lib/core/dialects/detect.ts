/**
 * Guessing a config's dialect from its content, for the import form's "detect" button and for
 * imports that do not say. Each rule looks for a marker only that dialect writes; `why` names it.
 */
import { parse as parseYaml } from "yaml";
import { AGENT_HOOKS_FORMATS } from "./agent-hooks-vocabulary";
import { CLAUDE_CODE_EVENTS } from "./claude-code-events";
import { isPlainObject, type PlainObject } from "./field-reader";
import { describeJsonProblem } from "./json-error-position";
import type { DialectName, SourceFiles } from "./types";

export type DialectDetection = {
  dialect: DialectName | null;
  /** 0…1: 0.9 and up is a marker only that dialect has; lower is a family resemblance. */
  confidence: number;
  why: string;
};

const LOOM_BUCKETS = ["onStart", "onToolCall", "onToolEnd", "onModelCall", "onModelEnd", "onComplete", "onError"];
const DEFINE_HOOK = /\bdefineHook\s*(?:<[^>()]*>)?\s*\(/;
const AT_BLOCK = /^\s*(topology|fragment|agent|hooks|hook)\b[^\n{:]*\{/m;
const AT_EVENT = /\bon\s*:\s*(SessionStart|SessionEnd|AgentStart|AgentStop|ToolUse|Error|PreToolUse|PostToolUse|SubagentStart|SubagentStop|Stop|UserPromptSubmit)\b/;

const result = (dialect: DialectName | null, confidence: number, why: string): DialectDetection => ({ dialect, confidence, why });

function keysOf(value: unknown): string[] {
  return isPlainObject(value) ? Object.keys(value) : [];
}

function parseStructured(content: string): PlainObject | undefined {
  content = content.replace(/^\uFEFF/, "");
  try {
    const value: unknown = content.trimStart().startsWith("{") ? JSON.parse(content) : parseYaml(content);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function detectDialect(content: string | SourceFiles): DialectDetection {
  if (typeof content !== "string") {
    const withHooks = Object.entries(content).filter(([, source]) => DEFINE_HOOK.test(source));
    return withHooks.length > 0
      ? result("standard-agents", 0.95, `${withHooks.length} of ${Object.keys(content).length} files call defineHook(`)
      : result(null, 0, "none of the files calls defineHook(");
  }
  if (DEFINE_HOOK.test(content)) return result("standard-agents", 0.95, "the source calls defineHook(");
  if (AT_BLOCK.test(content) && !content.trimStart().startsWith("{")) {
    return AT_EVENT.test(content)
      ? result("agentopology", 0.95, "`.at` blocks with an AgenTopology event (on: SessionStart, ToolUse, …)")
      : result("agentopology", 0.8, "`.at` blocks (topology/agent/hooks { … })");
  }

  const doc = parseStructured(content);
  if (!doc) {
    // Text that starts like JSON is JSON gone wrong, most often cut off: say where, not "not JSON".
    const text = content.replace(/^\uFEFF/, "");
    const json = /^\s*[{[]/.test(text) ? describeJsonProblem(text) : undefined;
    return result(null, 0, json?.message ?? "neither JSON, YAML nor .at source");
  }
  if (doc.hookplane !== undefined) return result("hookplane", 0.99, "the `hookplane:` version marker");
  if (isPlainObject(doc.files) && Object.values(doc.files).some((s) => typeof s === "string" && DEFINE_HOOK.test(s))) {
    return result("standard-agents", 0.95, "{files} whose sources call defineHook(");
  }

  const hookKeys = keysOf(doc.hooks);
  // The other coding agents first: Gemini CLI shares SessionStart/SessionEnd with Claude Code.
  for (const [dialect, format] of Object.entries(AGENT_HOOKS_FORMATS)) {
    if (dialect === "codex") continue; // Codex's hooks.json is Claude Code's format: read as claude-code
    const own = hookKeys.find((k) => k in format.events && !(CLAUDE_CODE_EVENTS as readonly string[]).includes(k));
    if (own) return result(dialect as DialectName, 0.95, `hooks.${own} (a ${format.name} event)`);
  }
  const claude = hookKeys.filter((k) => (CLAUDE_CODE_EVENTS as readonly string[]).includes(k));
  if (claude.length > 0) return result("claude-code", 0.95, `hooks.${claude[0]} (a Claude Code event)`);
  if (typeof doc.$schema === "string" && doc.$schema.includes("claude-code-settings")) return result("claude-code", 0.95, "the claude-code-settings $schema");
  if (isPlainObject(doc.permissions) && ["allow", "deny", "ask"].some((k) => Array.isArray((doc.permissions as PlainObject)[k]))) {
    return result("claude-code", 0.8, "permissions.allow/deny/ask (Claude Code settings)");
  }
  const loom = hookKeys.filter((k) => LOOM_BUCKETS.includes(k));
  if (loom.length > 0) return result("loom", 0.95, `hooks.${loom[0]} (a Loom agent.json bucket)`);
  if (hookKeys.includes("after_run") || hookKeys.includes("on_error")) {
    return result("herdctl", 0.95, `hooks.${hookKeys.includes("after_run") ? "after_run" : "on_error"} (herdctl's hook events)`);
  }

  for (const section of ["agents", "profiles"] as const) {
    const agents = doc[section];
    if (!isPlainObject(agents)) continue;
    const slots = Object.values(agents).flatMap((agent) => (isPlainObject(agent) ? keysOf(agent.hooks) : []));
    const slot = slots.find((k) => k === "beforeRun" || k === "afterRun" || k === "on");
    if (slot) return result("tailored-ai", 0.95, `${section}.<name>.hooks.${slot} (Tailored AI hooks)`);
  }
  if (isPlainObject(doc.cron) && Array.isArray(doc.cron.jobs)) return result("tailored-ai", 0.85, "cron.jobs (Tailored AI cron jobs)");
  if (isPlainObject(doc.profiles)) return result("tailored-ai", 0.7, "a profiles map (Tailored AI)");
  if (isPlainObject(doc.hooks) && keysOf(doc.hooks).includes("on")) return result("tailored-ai", 0.8, "hooks.on (Tailored AI runtime events)");

  if (typeof doc.version === "number" && Array.isArray(doc.hooks)) return result("hookplane", 0.7, "a version number and a hooks list");
  if ("system_prompt" in doc || "allowed_tools" in doc || "max_turns" in doc) {
    return result("herdctl", 0.75, "herdctl agent fields (system_prompt, allowed_tools, max_turns)");
  }
  if (typeof doc.name === "string" && ("systemPrompt" in doc || isPlainObject(doc.security) || isPlainObject(doc.tools))) {
    return result("loom", 0.7, "Loom profile fields (systemPrompt, security, tools)");
  }
  if (isPlainObject(doc.agents)) return result("tailored-ai", 0.6, "an agents map (Tailored AI)");
  return result(null, 0, "no dialect marker found");
}
