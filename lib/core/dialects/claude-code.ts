/**
 * Claude Code: `settings.json` (`{hooks: {PreToolUse: [{matcher, hooks: [{type, command, timeout}]}]}}`)
 * and a plugin's `hooks.json` (the same `hooks` object with an optional `description`).
 *
 * Semantics carried over: timeouts are seconds (default 600); a command blocks only by exiting 2,
 * any other failure lets the action go on, hence `onFailure: "continue"`.
 */
import type { EventName } from "@/lib/core/hooks/events";
import type { HookSpecInput } from "@/lib/core/hooks/spec";
import { ExportContext, allHooks, eventOf, scopeOf } from "./export-context";
import { kebabCase } from "./hook-ids";
import { ImportContext } from "./import-context";
import { parseJsonSource } from "./source-text";
import type { DialectConfig, ExportOptions, ExportResult, ImportOptions, ImportResult } from "./types";

/** Claude Code event → canonical event; null = no canonical counterpart. */
const EVENT_MAP: Record<string, EventName | null> = {
  PreToolUse: "tool.pre",
  PostToolUse: "tool.post",
  UserPromptSubmit: "user.prompt.submit",
  Stop: "session.end",
  SubagentStop: "session.end",
  SessionEnd: "session.end",
  SessionStart: "session.start",
  Notification: null,
  PreCompact: null,
};
const KNOWN_EVENTS = Object.keys(EVENT_MAP);

/** Canonical event → the Claude Code event an export writes. session.end → SessionEnd: it fires once per exit, like session.end. */
const EXPORT_EVENT: Partial<Record<EventName, string>> = {
  "tool.pre": "PreToolUse",
  "tool.post": "PostToolUse",
  "user.prompt.submit": "UserPromptSubmit",
  "session.start": "SessionStart",
  "session.end": "SessionEnd",
};

/** Only these events match tool names; SessionStart's matcher is a start source, not a tool. */
const TOOL_EVENTS = new Set(["PreToolUse", "PostToolUse"]);
const DEFAULT_TIMEOUT_S = 600;

export function importClaudeCode(content: string, options: ImportOptions = {}): ImportResult {
  const ctx = new ImportContext("claude-code");
  const root = ctx.reader(parseJsonSource(content, "claude-code"), "");
  if (!root) return ctx.finish();
  const scope = options.agent ? `agent:${options.agent}` : "global";

  root.ignore("description", "a plugin's description has no Hookplane field; ignored");
  const events = root.object("hooks", { required: true });
  for (const { key: eventName, path } of events?.entries() ?? []) {
    if (!(eventName in EVENT_MAP)) {
      ctx.unknownEvent(path, eventName, KNOWN_EVENTS);
      continue;
    }
    const event = EVENT_MAP[eventName];
    if (event === null) {
      ctx.warn(path, `Claude Code's ${eventName} has no Hookplane event; its hooks were not imported`);
      continue;
    }
    if (eventName === "SubagentStop") {
      ctx.warn(path, "SubagentStop imported as session.end: it fires at the end of the run, not after each subagent");
    }
    const groups = events?.list(eventName);
    let position = 0;
    for (const groupItem of groups ?? []) {
      const group = ctx.reader(groupItem.value, groupItem.path);
      if (!group) continue;
      const rawMatcher = group.string("matcher");
      const matcher = rawMatcher === "" ? undefined : rawMatcher;
      if (matcher !== undefined && !TOOL_EVENTS.has(eventName)) {
        ctx.warn(group.at("matcher"), `${eventName} does not match tool names; matcher "${matcher}" ignored`);
      }
      for (const hookItem of group.list("hooks", { required: true }) ?? []) {
        const hook = ctx.reader(hookItem.value, hookItem.path);
        if (!hook) continue;
        position++;
        const type = hook.string("type", { required: true });
        if (type !== undefined && type !== "command") {
          ctx.warn(hook.at("type"), `Claude Code "${type}" hooks have no Hookplane action (only "command" is imported); not imported`);
          continue;
        }
        const command = hook.string("command", { required: true });
        const timeoutS = hook.number("timeout", { positive: true, unit: "seconds" }) ?? DEFAULT_TIMEOUT_S;
        hook.warnUnread();
        if (command === undefined || type === undefined) continue;
        const spec: HookSpecInput = {
          id: ctx.hookId(scope, `${kebabCase(eventName)}-${position}`),
          event,
          scope,
          ...(matcher !== undefined && TOOL_EVENTS.has(eventName) ? { matcher } : {}),
          action: { type: "command", command },
          timeoutMs: Math.round(timeoutS * 1000),
          onFailure: "continue",
        };
        ctx.addHook(spec, hookItem.path);
      }
      group.warnUnread();
    }
  }
  root.warnUnread((key) => `Claude Code setting "${key}" is not a hook; not imported`);
  return ctx.finish();
}

type ClaudeHookGroup = { matcher?: string; hooks: { type: "command"; command: string; timeout?: number }[] };

export function exportClaudeCode(config: DialectConfig, options: ExportOptions = {}): ExportResult {
  const ctx = new ExportContext("claude-code");
  if (config.agents.length > 0) ctx.warn("agents", "Claude Code settings define no agents; agent definitions were not exported");
  const events: Record<string, ClaudeHookGroup[]> = {};

  for (const hook of allHooks(config)) {
    const scope = scopeOf(hook);
    const wanted = scope === "global" || (options.agent ? scope === `agent:${options.agent}` : scope.startsWith("agent:"));
    if (!wanted) {
      ctx.warnHook(hook, "scope", `belongs to ${scope}; this export is for ${options.agent ? `agent "${options.agent}"` : "global hooks and agents"} only`);
      continue;
    }
    if (scope !== "global" && !options.agent) {
      ctx.warnHook(hook, "scope", "Claude Code settings have no scopes; exported for every session");
    }
    if (ctx.skipsInactive(hook)) continue;
    const eventName = EXPORT_EVENT[eventOf(hook)];
    if (!eventName) {
      ctx.warnHook(hook, "event", `Claude Code has no event for ${eventOf(hook)}; not exported`);
      continue;
    }
    if (hook.action.type !== "command") {
      ctx.warnHook(hook, "action", `Claude Code runs only command hooks; the ${hook.action.type} action was not exported`);
      continue;
    }
    if (hook.name) ctx.warnHook(hook, "name", "Claude Code hooks have no names; exported without it");
    if (hook.when) ctx.warnHook(hook, "when", "Claude Code hooks have no condition; exported without it");
    if (hook.onOutcomes) ctx.warnHook(hook, "onOutcomes", "Claude Code hooks cannot filter by outcome; exported without it");
    if (hook.action.secrets?.length) ctx.warnHook(hook, "action.secrets", "Claude Code passes no secrets; exported without them");
    if (hook.onFailure === "block") {
      ctx.warnHook(hook, "onFailure", "in Claude Code only exit code 2 blocks; a failing or timed-out command lets the action continue");
    }
    let matcher = hook.matcher;
    if (matcher !== undefined && !TOOL_EVENTS.has(eventName)) {
      ctx.warnHook(hook, "matcher", `Claude Code's ${eventName} does not match tool names; exported without the matcher`);
      matcher = undefined;
    }
    let timeout: number | undefined;
    if (hook.timeoutMs !== undefined && hook.timeoutMs !== DEFAULT_TIMEOUT_S * 1000) {
      timeout = Math.ceil(hook.timeoutMs / 1000);
      if (timeout * 1000 !== hook.timeoutMs) {
        ctx.warnHook(hook, "timeoutMs", `Claude Code timeouts are whole seconds; ${hook.timeoutMs} ms rounded up to ${timeout} s`);
      }
    }
    const groups = (events[eventName] ??= []);
    const last = groups[groups.length - 1];
    const entry = { type: "command" as const, command: hook.action.command, ...(timeout !== undefined ? { timeout } : {}) };
    // Consecutive hooks with the same matcher share a group, as people write them by hand.
    if (last && last.matcher === matcher) last.hooks.push(entry);
    else groups.push({ ...(matcher !== undefined ? { matcher } : {}), hooks: [entry] });
  }
  return { content: `${JSON.stringify({ hooks: events }, null, 2)}\n`, warnings: ctx.warnings };
}
