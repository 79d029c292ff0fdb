/**
 * The hook files of the coding agents Hookplane bridges besides Claude Code: Codex
 * (`.codex/hooks.json`), Gemini CLI (`.gemini/settings.json` `hooks`), GitHub Copilot CLI
 * (`.github/hooks/*.json`) and Cursor (`.cursor/hooks.json`). One importer and one exporter read a
 * table per agent: its event names, how a hook entry is written (nested under a matcher group or
 * flat), its command field and its timeout's unit.
 *
 * Import: command hooks become Hookplane command hooks on the canonical event (they then run on
 * the Hookplane server with Hookplane's event JSON, which uses Claude Code's field names: said in a
 * warning where the agent's own differ); the Hookplane bridge (`hookplane hook <agent>`) is
 * recognised and skipped. Export: command hooks are written natively; hooks the agent cannot run
 * (block, approve, context, webhook, notices, ...) are written as the bridge on their event, plus
 * the session events, so the guard holds in the agent.
 */
import type { EventName } from "@/lib/core/hooks/events";
import type { HookSpecInput } from "@/lib/core/hooks/spec";
import { ExportContext, allHooks, eventOf, scopeOf } from "./export-context";
import { kebabCase } from "./hook-ids";
import { ImportContext } from "./import-context";
import { parseJsonSource } from "./source-text";
import type { DialectConfig, ExportOptions, ExportResult, ImportOptions, ImportResult } from "./types";

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
  /** The agent's own stdin uses other names than Hookplane's event JSON. */
  ownStdin?: string;
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
    ownStdin: "Gemini CLI's event names (BeforeTool, ...)",
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
    ownStdin: "Copilot CLI's camelCase fields (toolName, toolArgs)",
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
    ownStdin: "Cursor's fields (command, file_path, conversation_id)",
  },
};

/** Cursor's gates each stand for one kind of tool call (the bridge's tool names). */
const CURSOR_TOOL: Record<string, string> = { beforeShellExecution: "Shell", afterShellExecution: "Shell", beforeReadFile: "Read", afterFileEdit: "Edit" };
/** Cursor's tool.pre hooks are bridged on every gate: a guard must see shell, MCP and file reads. */
const CURSOR_GATES = ["beforeShellExecution", "beforeMCPExecution", "beforeReadFile"];

const BRIDGE_COMMAND = /^\s*(?:npx\s+(?:-y\s+)?)?hookplane\s+hook\s+(?:claude-code|codex|gemini-cli|copilot|cursor)\b/;
const agentOfBridge = (command: string) => /--agent(?:=|\s+)["']?([^\s"']+)/.exec(command)?.[1];

export function importAgentHooks(dialect: AgentHooksDialect, content: string, options: ImportOptions = {}): ImportResult {
  const format = AGENT_HOOKS_FORMATS[dialect];
  const ctx = new ImportContext(dialect);
  const root = ctx.reader(parseJsonSource(content, dialect), "");
  if (!root) return ctx.finish();
  const scope = options.agent ? `agent:${options.agent}` : "global";
  if (format.versioned) {
    const version = root.number("version");
    if (version !== undefined && version !== 1) ctx.warn("version", `${format.name} hook files are version 1; read as such`);
  }
  if (!root.has("hooks")) ctx.warn("hooks", `this ${format.name} file has no hooks; nothing was imported`);
  const events = root.object("hooks");
  const known = Object.keys(format.events);
  for (const { key: eventName, path } of events?.entries() ?? []) {
    const mapped = format.events[eventName];
    if (mapped === undefined) {
      ctx.unknownEvent(path, eventName, known);
      continue;
    }
    if (typeof mapped !== "string") {
      ctx.warn(path, `${format.name}'s ${eventName}: ${mapped.none}; its hooks were not imported`);
      continue;
    }
    let position = 0;
    // Nested formats group entries under a matcher; flat ones list entries directly.
    const groups = format.nested
      ? (events?.list(eventName) ?? []).map((g) => ({ group: ctx.reader(g.value, g.path), path: g.path }))
      : [{ group: undefined, path }];
    for (const { group, path: groupPath } of groups) {
      if (format.nested && !group) continue;
      const rawMatcher = group?.string("matcher");
      let matcher = rawMatcher === "" ? undefined : rawMatcher;
      if (matcher !== undefined && !format.toolEvents.has(eventName)) {
        ctx.warn(group!.at("matcher"), `${eventName} does not match tool names; matcher "${matcher}" ignored`);
        matcher = undefined;
      }
      if (dialect === "cursor" && CURSOR_TOOL[eventName]) matcher = CURSOR_TOOL[eventName];
      const entries = format.nested ? (group!.list("hooks", { required: true }) ?? []) : (events?.list(eventName) ?? []);
      for (const item of entries) {
        const hook = ctx.reader(item.value, item.path);
        if (!hook) continue;
        position++;
        const type = hook.string("type") ?? "command";
        if (type !== "command") {
          ctx.warn(hook.at("type"), `${format.name} "${type}" hooks have no Hookplane action (only "command" is imported); not imported`);
          continue;
        }
        const command = hook.string(format.commandField, { required: true });
        const timeout = hook.number(format.timeoutField, { positive: true, unit: format.timeoutUnitMs === 1 ? "milliseconds" : "seconds" });
        const name = hook.string("name");
        for (const key of ["description", "powershell", "cwd", "env", "sequential"]) {
          if (hook.has(key)) hook.ignore(key, `${format.name}'s "${key}" has no Hookplane field; ignored`);
        }
        hook.warnUnread();
        if (command === undefined) continue;
        if (BRIDGE_COMMAND.test(command)) {
          const agent = agentOfBridge(command);
          ctx.warn(item.path, `the Hookplane bridge${agent ? ` (agent ${agent})` : ""}: the hooks it runs live in Hookplane; not imported as a command`);
          continue;
        }
        if (format.ownStdin) {
          ctx.warn(hook.at(format.commandField), `runs on the Hookplane server with Hookplane's event JSON (Claude Code's field names), not ${format.ownStdin}`);
        }
        const spec: HookSpecInput = {
          id: ctx.hookId(scope, `${kebabCase(eventName)}-${position}`),
          ...(name ? { name } : {}),
          event: mapped,
          scope,
          ...(matcher !== undefined ? { matcher } : {}),
          action: { type: "command", command },
          timeoutMs: timeout !== undefined ? Math.round(timeout * format.timeoutUnitMs) : format.defaultTimeoutMs,
          onFailure: "continue",
        };
        ctx.addHook(spec, item.path);
      }
      group?.warnUnread();
    }
  }
  root.warnUnread((key) => `${format.name} setting "${key}" is not a hook; not imported`);
  return ctx.finish();
}

type Entry = Record<string, unknown>;

export function exportAgentHooks(dialect: AgentHooksDialect, config: DialectConfig, options: ExportOptions = {}): ExportResult {
  const format = AGENT_HOOKS_FORMATS[dialect];
  const ctx = new ExportContext(dialect);
  if (config.agents.length > 0) ctx.warn("agents", `${format.name} hook files define no agents; agent definitions were not exported`);
  const native: Record<string, { matcher?: string; entries: Entry[] }[]> = {};
  const bridged = new Map<string, { event: string; agent?: string; waitMs: number }>();
  const add = (event: string, matcher: string | undefined, entry: Entry, first = false) => {
    const groups = (native[event] ??= []);
    const last = groups[groups.length - 1];
    if (!first && last && last.matcher === matcher) last.entries.push(entry);
    else if (first) groups.unshift({ matcher, entries: [entry] });
    else groups.push({ matcher, entries: [entry] });
  };
  const timeoutOf = (ms: number): number => Math.ceil(ms / format.timeoutUnitMs);

  for (const hook of allHooks(config)) {
    const scope = scopeOf(hook);
    const wanted = scope === "global" || (options.agent ? scope === `agent:${options.agent}` : scope.startsWith("agent:"));
    if (!wanted) {
      ctx.warnHook(hook, "scope", `belongs to ${scope}; this export is for ${options.agent ? `agent "${options.agent}"` : "global hooks and agents"} only`);
      continue;
    }
    if (ctx.skipsInactive(hook)) continue;
    const canonical = eventOf(hook);
    const agent = options.agent ?? (scope.startsWith("agent:") ? scope.slice("agent:".length) : undefined);
    if (hook.action.type !== "command") {
      if (canonical.startsWith("approval.")) continue; // fires in Hookplane around an approval the bridge asks for
      const targets = dialect === "cursor" && canonical === "tool.pre" ? CURSOR_GATES : dialect === "cursor" && canonical === "tool.post" ? ["afterShellExecution", "afterFileEdit"] : [format.exportEvents[canonical]];
      if (!targets[0]) {
        ctx.warnHook(hook, "event", `${format.name} has no event for ${canonical}; the ${hook.action.type} hook was not exported`);
        continue;
      }
      for (const event of targets as string[]) {
        const key = `${event}\u0000${agent ?? ""}`;
        const bridge = bridged.get(key) ?? { event, agent, waitMs: 0 };
        if (hook.action.type === "approve") bridge.waitMs = Math.max(bridge.waitMs, hook.action.timeoutMs ?? 0);
        bridged.set(key, bridge);
      }
      continue;
    }
    let event = format.exportEvents[canonical];
    if (dialect === "cursor" && hook.matcher && canonical === "tool.pre") {
      event = Object.entries(CURSOR_TOOL).find(([e, tool]) => tool === hook.matcher && e.startsWith("before"))?.[0] ?? "beforeMCPExecution";
    }
    if (dialect === "cursor" && hook.matcher && canonical === "tool.post") event = hook.matcher === "Edit" ? "afterFileEdit" : "afterShellExecution";
    if (!event) {
      ctx.warnHook(hook, "event", `${format.name} has no event for ${canonical}; not exported`);
      continue;
    }
    let matcher = hook.matcher;
    if (dialect === "cursor") matcher = undefined; // the event itself says which tool
    else if (matcher !== undefined && !format.toolEvents.has(event)) {
      ctx.warnHook(hook, "matcher", `${format.name}'s ${event} has no matcher; exported for every call`);
      matcher = undefined;
    }
    if (hook.when) ctx.warnHook(hook, "when", `${format.name} hooks have no condition; exported without it`);
    if (hook.onOutcomes) ctx.warnHook(hook, "onOutcomes", `${format.name} hooks cannot filter by outcome; exported without it`);
    if (hook.action.secrets?.length) ctx.warnHook(hook, "action.secrets", `${format.name} passes no secrets; exported without them`);
    if (hook.onFailure === "block") ctx.warnHook(hook, "onFailure", `in ${format.name} a failing or timed-out command lets the action continue`);
    let timeout: number | undefined;
    if (hook.timeoutMs !== undefined && hook.timeoutMs !== format.defaultTimeoutMs) {
      timeout = timeoutOf(hook.timeoutMs);
      if (timeout * format.timeoutUnitMs !== hook.timeoutMs) ctx.warnHook(hook, "timeoutMs", `${format.name} timeouts are whole ${format.timeoutUnitMs === 1000 ? "seconds" : "milliseconds"}; rounded up`);
    }
    add(event, matcher, {
      type: "command",
      [format.commandField]: hook.action.command,
      ...(hook.name && format.nested ? { name: hook.name } : {}),
      ...(timeout !== undefined ? { [format.timeoutField]: timeout } : {}),
    });
  }

  if (bridged.size > 0) {
    for (const bridge of [...bridged.values()]) {
      for (const event of format.sessionEvents) {
        const key = `${event}\u0000${bridge.agent ?? ""}`;
        if (!bridged.has(key)) bridged.set(key, { event, agent: bridge.agent, waitMs: 0 });
      }
    }
    for (const bridge of bridged.values()) {
      const args = ["hookplane", "hook", dialect, ...(bridge.agent ? ["--agent", bridge.agent] : []), ...(dialect === "copilot" ? ["--event", bridge.event] : [])];
      // An approval may wait longer than the agent's default hook timeout: both are lengthened.
      const longer = bridge.waitMs > format.defaultTimeoutMs - 10_000;
      if (longer) args.push("--timeout-ms", String(bridge.waitMs + 5_000));
      add(bridge.event, undefined, { type: "command", [format.commandField]: args.join(" "), ...(longer ? { [format.timeoutField]: timeoutOf(bridge.waitMs + 15_000) } : {}) }, true);
    }
    if ([...bridged.values()].some((b) => b.agent === undefined)) {
      ctx.warn("hooks", "global hooks are bridged without an agent: set HOOKPLANE_AGENT in the agent's environment (or export for one agent)");
    }
    ctx.warn("hooks", `hooks ${format.name} cannot run itself are enforced through the bridge \`hookplane hook ${dialect}\`: install the hookplane CLI and set HOOKPLANE_URL and HOOKPLANE_TOKEN; it blocks when Hookplane cannot be reached (fail closed)`);
  }

  const hooks = Object.fromEntries(
    Object.entries(native).map(([event, groups]) => [
      event,
      format.nested ? groups.map((g) => ({ ...(g.matcher !== undefined ? { matcher: g.matcher } : {}), hooks: g.entries })) : groups.flatMap((g) => g.entries),
    ]),
  );
  const document = format.versioned ? { version: 1, hooks } : { hooks };
  return { content: `${JSON.stringify(document, null, 2)}\n`, warnings: ctx.warnings };
}
