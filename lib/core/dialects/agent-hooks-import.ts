/**
 * The hook files of the coding agents Hookplane bridges besides Claude Code: Codex
 * (`.codex/hooks.json`), Gemini CLI (`.gemini/settings.json` `hooks`), GitHub Copilot CLI
 * (`.github/hooks/*.json`) and Cursor (`.cursor/hooks.json`). One importer and one exporter read a
 * table per agent: its event names, how a hook entry is written (nested under a matcher group or
 * flat), its command field and its timeout's unit.
 *
 * Import: command hooks become Hookplane command hooks on the canonical event that keep running on
 * the developer's machine (`runsOn: "agent"`, runs-on.ts: the export writes them back natively into
 * the settings `hookplane install` puts next to the bridge, so they get the agent's own stdin); the Hookplane bridge (`hookplane hook <agent>`) is
 * recognised and skipped. Export: command hooks are written natively; hooks the agent cannot run
 * (block, approve, context, webhook, notices, ...) are written as the bridge on their event, plus
 * the session events, so the guard holds in the agent.
 */
import type { HookSpecInput } from "@/lib/core/hooks/spec";
import { AGENT_HOOKS_FORMATS, CURSOR_TOOL, type AgentHooksDialect } from "./agent-hooks-vocabulary";
import { agentOfBridge, BRIDGE_COMMAND } from "./bridge-command";
import { kebabCase } from "./hook-ids";
import { startJsonImport } from "./import-context";
import type { ImportOptions, ImportResult } from "./types";

export function importAgentHooks(dialect: AgentHooksDialect, content: string, options: ImportOptions = {}): ImportResult {
  const format = AGENT_HOOKS_FORMATS[dialect];
  const { ctx, root } = startJsonImport(dialect, content, format.name);
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
      ctx.notImported(path, `${format.name}'s ${eventName}: ${mapped.none}; its hooks were not imported`);
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
          ctx.notImported(hook.at("type"), `${format.name} "${type}" hooks have no Hookplane action (only "command" is imported); not imported`);
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
        const spec: HookSpecInput = {
          id: ctx.hookId(scope, `${kebabCase(eventName)}-${position}`),
          ...(name ? { name } : {}),
          event: mapped,
          scope,
          ...(matcher !== undefined ? { matcher } : {}),
          action: { type: "command", command },
          timeoutMs: timeout !== undefined ? Math.round(timeout * format.timeoutUnitMs) : format.defaultTimeoutMs,
          onFailure: "continue",
          // It ran on the developer's machine with the agent's own payload: it stays there (runs-on.ts).
          runsOn: "agent",
        };
        ctx.addHook(spec, item.path);
      }
      group?.warnUnread();
    }
  }
  root.warnUnread((key) => `${format.name} setting "${key}" is not a hook; not imported`);
  return ctx.finish();
}

