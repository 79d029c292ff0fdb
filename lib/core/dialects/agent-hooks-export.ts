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
import { AGENT_HOOKS_FORMATS, CURSOR_GATES, CURSOR_TOOL, type AgentHooksDialect } from "./agent-hooks-vocabulary";
import { ExportContext, allHooks, eventOf, inAgentExport, scopeOf } from "./export-context";
import type { DialectConfig, ExportOptions, ExportResult } from "./types";

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
    if (!inAgentExport(ctx, hook, options)) continue;
    const scope = scopeOf(hook);
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

  // Asked to record sessions, they are bridged before any hook needs the bridge (the loop below
  // adds the rest of the session events).
  if (options.recordSessions) {
    const key = `${format.sessionEvents[0]}\u0000${options.agent ?? ""}`;
    if (!bridged.has(key)) bridged.set(key, { event: format.sessionEvents[0], agent: options.agent, waitMs: 0 });
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
