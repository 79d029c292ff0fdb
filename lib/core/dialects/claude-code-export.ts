/**
 * Claude Code, the exporter (its importer: claude-code-import.ts): `settings.json` (`{hooks: {PreToolUse: [{matcher, hooks: [{type, command, timeout}]}]}}`)
 * and a plugin's `hooks.json` (the same `hooks` object with an optional `description`).
 *
 * Semantics carried over: timeouts are seconds (default 600); a command blocks only by exiting 2,
 * any other failure lets the action go on, hence `onFailure: "continue"`. Events: every one Claude
 * Code has (claude-code-events.ts); Stop is a turn's end, SubagentStop an agent's stop, and
 * PostToolUseFailure a tool.post with `when: isError`. A matcher may be a permission rule
 * (`Write(docs/prds/**)`): the tool becomes the matcher and the specifier a `when` on its input.
 *
 * Exports that enforce: hooks Claude Code cannot run itself (block, approve, context, webhook,
 * notices, ...) are exported as the bridge hook `hookplane hook claude-code --agent NAME` on their
 * event (or, with `bridge: "http"`, Claude Code's http hook pointed at the ingest endpoint), so the
 * guard holds in every session; importing a file with the bridge in it skips the bridge.
 */
import { CLAUDE_AGENT_EVENTS, CLAUDE_TOOL_EVENTS, type ClaudeCodeEvent } from "./claude-code-events";
import { DEFAULT_TIMEOUT_S, EXPORT_EVENT, FAILED_TOOL } from "./claude-code-vocabulary";
import { ExportContext, allHooks, eventOf, inAgentExport, scopeOf } from "./export-context";
import type { DialectConfig, ExportOptions, ExportResult } from "./types";

type ClaudeCommandHook = { type: "command"; command: string; timeout?: number };
type ClaudeHttpHook = { type: "http"; url: string; headers: Record<string, string>; allowedEnvVars: string[]; timeout?: number };
type ClaudeHookGroup = { matcher?: string; hooks: (ClaudeCommandHook | ClaudeHttpHook)[] };

/** Bridged whenever anything is: a session's run starts, gets its cost at each turn's end, and finishes. */
const SESSION_EVENTS: readonly ClaudeCodeEvent[] = ["SessionStart", "Stop", "SessionEnd"];

/** The CLI's own default wait (bin/hookplane.cjs), under Claude Code's default hook timeout. */
const BRIDGE_DEFAULT_WAIT_MS = 590_000;
const SAFE_ARG = /^[A-Za-z0-9._@:+-]+$/;
const shellArg = (text: string) => (SAFE_ARG.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`);

/** One bridge entry per Claude Code event and agent; an approve hook may make it wait longer. */
type Bridge = { event: ClaudeCodeEvent; agent?: string; waitMs: number };

function bridgeEntry(bridge: Bridge, options: ExportOptions): ClaudeCommandHook | ClaudeHttpHook {
  const longer = bridge.waitMs > BRIDGE_DEFAULT_WAIT_MS;
  // Claude Code kills a hook at its timeout: it must outlast the CLI's own wait.
  const timeout = longer ? Math.ceil(bridge.waitMs / 1000) + 15 : undefined;
  if (options.bridge === "http") {
    return {
      type: "http",
      url: `${(options.hookplaneUrl ?? "http://127.0.0.1:3000").replace(/\/+$/, "")}/api/v1/ingest/claude-code`,
      headers: { Authorization: "Bearer $HOOKPLANE_TOKEN", ...(bridge.agent ? { "X-Hookplane-Agent": bridge.agent } : {}) },
      allowedEnvVars: ["HOOKPLANE_TOKEN"],
      ...(timeout ? { timeout } : {}),
    };
  }
  const args = ["hookplane", "hook", "claude-code", ...(bridge.agent ? ["--agent", shellArg(bridge.agent)] : []), ...(longer ? ["--timeout-ms", String(bridge.waitMs + 5_000)] : [])];
  return { type: "command", command: args.join(" "), ...(timeout ? { timeout } : {}) };
}

export function exportClaudeCode(config: DialectConfig, options: ExportOptions = {}): ExportResult {
  const ctx = new ExportContext("claude-code");
  if (config.agents.length > 0) ctx.warn("agents", "Claude Code settings define no agents; agent definitions were not exported");
  const events: Partial<Record<ClaudeCodeEvent, ClaudeHookGroup[]>> = {};
  const bridges = new Map<string, Bridge>();

  for (const hook of allHooks(config)) {
    if (!inAgentExport(ctx, hook, options)) continue;
    const scope = scopeOf(hook);
    if (scope !== "global" && !options.agent) {
      ctx.warnHook(hook, "scope", "Claude Code settings have no scopes; exported for every session");
    }
    if (ctx.skipsInactive(hook)) continue;
    const canonical = eventOf(hook);
    if (hook.action.type !== "command") {
      // Hookplane runs it: the bridge hands Claude Code's event over and answers with the verdict.
      if (canonical.startsWith("approval.")) continue; // fires in Hookplane around an approval the bridge asks for
      const event = EXPORT_EVENT[canonical];
      if (!event) {
        ctx.warnHook(hook, "event", `Claude Code has no event for ${canonical}; the ${hook.action.type} hook was not exported`);
        continue;
      }
      const agent = options.agent ?? (scope.startsWith("agent:") ? scope.slice("agent:".length) : undefined);
      const key = `${event}\u0000${agent ?? ""}`;
      const bridge = bridges.get(key) ?? { event, agent, waitMs: BRIDGE_DEFAULT_WAIT_MS };
      if (hook.action.type === "approve") bridge.waitMs = Math.max(bridge.waitMs, hook.action.timeoutMs ?? 0);
      bridges.set(key, bridge);
      // A failed tool call is a PostToolUseFailure in Claude Code: tool.post is bridged on both.
      if (event === "PostToolUse") bridges.set(`PostToolUseFailure\u0000${agent ?? ""}`, { ...bridge, event: "PostToolUseFailure" });
      continue;
    }
    const failed = canonical === "tool.post" && hook.when === FAILED_TOOL;
    const eventName = failed ? "PostToolUseFailure" : EXPORT_EVENT[canonical];
    if (!eventName) {
      ctx.warnHook(hook, "event", `Claude Code has no event for ${canonical}; not exported`);
      continue;
    }
    if (hook.name) ctx.warnHook(hook, "name", "Claude Code hooks have no names; exported without it");
    if (hook.when && !failed) ctx.warnHook(hook, "when", "Claude Code hooks have no condition; exported without it");
    if (hook.onOutcomes) ctx.warnHook(hook, "onOutcomes", "Claude Code hooks cannot filter by outcome; exported without it");
    if (hook.action.secrets?.length) ctx.warnHook(hook, "action.secrets", "Claude Code passes no secrets; exported without them");
    if (hook.onFailure === "block") {
      ctx.warnHook(hook, "onFailure", "in Claude Code only exit code 2 blocks; a failing or timed-out command lets the action continue");
    }
    let matcher = hook.matcher;
    if (matcher !== undefined && !CLAUDE_TOOL_EVENTS.has(eventName) && !CLAUDE_AGENT_EVENTS.has(eventName)) {
      ctx.warnHook(hook, "matcher", `Claude Code's ${eventName} does not match tool or agent names; exported without the matcher`);
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

  // A bridged agent's session is recorded whole: its start, each turn's end (which carries the
  // transcript's usage, for cost and budgets) and its end, even where no hook binds to them.
  for (const bridge of [...bridges.values()]) {
    for (const event of SESSION_EVENTS) {
      const key = `${event}\u0000${bridge.agent ?? ""}`;
      if (!bridges.has(key)) bridges.set(key, { event, agent: bridge.agent, waitMs: BRIDGE_DEFAULT_WAIT_MS });
    }
  }
  // The bridge runs first on its event, in a group of its own (no matcher: Hookplane matches itself).
  for (const bridge of bridges.values()) {
    (events[bridge.event] ??= []).unshift({ hooks: [bridgeEntry(bridge, options)] });
  }
  if (bridges.size > 0) {
    if ([...bridges.values()].some((b) => b.agent === undefined)) {
      ctx.warn("hooks", "global hooks are bridged without an agent: set HOOKPLANE_AGENT in Claude Code's environment (or export for one agent)");
    }
    ctx.warn(
      "hooks",
      options.bridge === "http"
        ? "hooks Claude Code cannot run itself are enforced through Claude Code's http hook to Hookplane; Claude Code lets the action go on when Hookplane cannot be reached or answers an error (fail open). Set HOOKPLANE_TOKEN in its environment"
        : "hooks Claude Code cannot run itself are enforced through the bridge `hookplane hook claude-code`: install the hookplane CLI and set HOOKPLANE_URL and HOOKPLANE_TOKEN; it blocks when Hookplane cannot be reached (fail closed)",
    );
  }
  return { content: `${JSON.stringify({ hooks: events }, null, 2)}\n`, warnings: ctx.warnings };
}
