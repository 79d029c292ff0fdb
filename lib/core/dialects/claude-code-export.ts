/**
 * Claude Code, the exporter (its importer: claude-code-import.ts): `settings.json` (`{hooks: {PreToolUse: [{matcher, hooks: [{type, command, timeout}]}]}}`)
 * and a plugin's `hooks.json` (the same `hooks` object with an optional `description`).
 *
 * Semantics carried over: timeouts are seconds (default 600); a command blocks by exiting 2, and
 * any other failure lets the action go on (`onFailure: "continue"`) unless the hook says
 * `onFailure: "block"` (Claude Code 2.1.295+; ignored on Stop, SubagentStop, TaskCompleted,
 * TeammateIdle and async hooks). Exec-form `args` become quoted shell words. Events: every one Claude
 * Code has (claude-code-events.ts); Stop is a turn's end, SubagentStop an agent's stop, and
 * PostToolUseFailure a tool.post with `when: isError`. A matcher may be a permission rule
 * (`Write(docs/prds/**)`): the tool becomes the matcher and the specifier a `when` on its input;
 * `if` narrows one hook the same way. SessionStart's matcher (the source), SessionEnd's (the
 * reason) and StopFailure's (the error) become a `when` on that field, so nothing runs wider.
 *
 * Exports that enforce: hooks Claude Code cannot run itself (block, approve, context, webhook,
 * notices, ...) are exported as the bridge hook `hookplane hook claude-code --agent NAME` on their
 * event (or, with `bridge: "http"`, Claude Code's http hook pointed at the ingest endpoint), so the
 * guard holds in every session; importing a file with the bridge in it skips the bridge.
 */
import { isBlockingEvent } from "@/lib/core/hooks/events";
import type { WebhookAction } from "@/lib/core/hooks/spec";
import { CLAUDE_AGENT_EVENTS, CLAUDE_ON_FAILURE_IGNORED, CLAUDE_TOOL_EVENTS, type ClaudeCodeEvent } from "./claude-code-events";
import { permissionRuleOf } from "./claude-permission-rule";
import { DEFAULT_TIMEOUT_S, EXPORT_EVENT, FAILED_TOOL } from "./claude-code-vocabulary";
import { ExportContext, allHooks, eventOf, inAgentExport, scopeOf } from "./export-context";
import type { DialectConfig, ExportOptions, ExportResult } from "./types";

type OnFailure = { onFailure?: "block" };

/** A webhook as Claude Code's http hook: `${secret:NAME}` in a header becomes `$NAME`, allowed in allowedEnvVars. */
function httpEntry(action: WebhookAction): Omit<ClaudeHttpHook, "timeout" | "onFailure"> {
  const names = new Set<string>();
  const headers = Object.fromEntries(
    Object.entries(action.headers ?? {}).map(([key, value]) => [key, value.replace(/\$\{secret:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => (names.add(name), `\${${name}}`))]),
  );
  return { type: "http", url: action.url, headers, allowedEnvVars: [...names] };
}
type ClaudeCommandHook = { type: "command"; command: string; timeout?: number; if?: string } & OnFailure;
type ClaudeHttpHook = { type: "http"; url: string; headers: Record<string, string>; allowedEnvVars: string[]; timeout?: number; if?: string } & OnFailure;
type ClaudeHookGroup = { matcher?: string; hooks: (ClaudeCommandHook | ClaudeHttpHook)[] };

/** Bridged whenever anything is: a session's run starts, gets its cost at each turn's end, and finishes. */
const SESSION_EVENTS: readonly ClaudeCodeEvent[] = ["SessionStart", "Stop", "SessionEnd"];

/**
 * The events whose bridge entry fails closed: those where a refusal stops something (the CLI's own
 * exit-2 set, AGENTS in bin/lib/hook.cjs). With `onFailure: "block"` (Claude Code 2.1.295+) a bridge that
 * cannot run at all (the CLI missing from PATH, exit 127; Hookplane unreachable over http) refuses
 * instead of letting the call through. Older Claude Code ignores the field.
 */
const FAIL_CLOSED_EVENTS: ReadonlySet<ClaudeCodeEvent> = new Set(["PreToolUse", "PermissionRequest", "UserPromptSubmit"]);
const failClosed = (event: ClaudeCodeEvent): OnFailure => (FAIL_CLOSED_EVENTS.has(event) ? { onFailure: "block" } : {});

/**
 * A `when` the importer wrote for a matcher over an event's own field (SessionStart's source,
 * SessionEnd's reason, StopFailure's error): written back as that matcher.
 */
const MATCHER_WHEN: Partial<Record<ClaudeCodeEvent, RegExp>> = {
  SessionStart: /^source: \/\^\(\?:(.+)\)\$\/$/,
  SessionEnd: /^reason: \/\^\(\?:(.+)\)\$\/$/,
  StopFailure: /^message: \/\^\(\?:(.+)\)\$\/$/,
};

/** The CLI's own default wait (bin/lib/hook.cjs), under Claude Code's default hook timeout. */
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
      ...failClosed(bridge.event),
    };
  }
  const args = ["hookplane", "hook", "claude-code", ...(bridge.agent ? ["--agent", shellArg(bridge.agent)] : []), ...(longer ? ["--timeout-ms", String(bridge.waitMs + 5_000)] : [])];
  return { type: "command", command: args.join(" "), ...(timeout ? { timeout } : {}), ...failClosed(bridge.event) };
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
    const action = hook.action;
    // An http hook imported from Claude Code goes back as one (Claude Code POSTs, reads the answer).
    const nativeHttp = action.type === "webhook" && hook.dialect === "claude-code" && (action.method ?? "POST") === "POST";
    if (action.type !== "command" && !nativeHttp) {
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
    let matcher = hook.matcher;
    const fieldMatcher = hook.when ? MATCHER_WHEN[eventName]?.exec(hook.when)?.[1] : undefined;
    // A when read from a permission rule (a rule-form matcher or an `if`) goes back as that `if`.
    const rule = hook.when && !failed && matcher !== undefined && CLAUDE_TOOL_EVENTS.has(eventName) ? permissionRuleOf(matcher, hook.when) : undefined;
    if (fieldMatcher !== undefined && matcher === undefined) matcher = fieldMatcher;
    else if (hook.when && !failed && rule === undefined) ctx.warnHook(hook, "when", "Claude Code hooks have no condition but a permission rule (if); exported without it");
    if (hook.onOutcomes) ctx.warnHook(hook, "onOutcomes", "Claude Code hooks cannot filter by outcome; exported without it");
    if (action.type === "command" && action.secrets?.length) ctx.warnHook(hook, "action.secrets", "Claude Code passes no secrets; exported without them");
    // Hookplane's own default: a command on an event that can block fails closed.
    const failureBlocks = hook.onFailure !== undefined ? hook.onFailure === "block" : isBlockingEvent(canonical);
    let onFailure: OnFailure = {};
    if (failureBlocks && CLAUDE_ON_FAILURE_IGNORED.has(eventName)) {
      ctx.warnHook(hook, "onFailure", `Claude Code ignores onFailure "block" on ${eventName}: a failing or timed-out command lets the turn end (only exit code 2 keeps it working)`);
    } else if (failureBlocks) onFailure = { onFailure: "block" };
    if (matcher !== undefined && fieldMatcher === undefined && !CLAUDE_TOOL_EVENTS.has(eventName) && !CLAUDE_AGENT_EVENTS.has(eventName)) {
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
    const timing = { ...(rule !== undefined ? { if: rule } : {}), ...(timeout !== undefined ? { timeout } : {}), ...onFailure };
    const entry: ClaudeCommandHook | ClaudeHttpHook =
      action.type === "command" ? { type: "command", command: action.command, ...timing } : { ...httpEntry(action as WebhookAction), ...timing };
    // Consecutive hooks with the same matcher share a group, as people write them by hand.
    if (last && last.matcher === matcher) last.hooks.push(entry);
    else groups.push({ ...(matcher !== undefined ? { matcher } : {}), hooks: [entry] });
  }

  // Asked to record sessions, its start is bridged before any hook needs the bridge (the loop
  // below adds the rest of the session).
  if (options.recordSessions) {
    const key = `${SESSION_EVENTS[0]}\u0000${options.agent ?? ""}`;
    if (!bridges.has(key)) bridges.set(key, { event: SESSION_EVENTS[0], agent: options.agent, waitMs: BRIDGE_DEFAULT_WAIT_MS });
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
        ? "hooks Claude Code cannot run itself are enforced through Claude Code's http hook to Hookplane, with onFailure \"block\" on PreToolUse, PermissionRequest and UserPromptSubmit: from Claude Code 2.1.295 a call is refused when Hookplane cannot be reached or answers an error (fail closed); older versions ignore onFailure and let it go on (fail open). Set HOOKPLANE_TOKEN in its environment"
        : "hooks Claude Code cannot run itself are enforced through the bridge `hookplane hook claude-code`: install the hookplane CLI and set HOOKPLANE_URL and HOOKPLANE_TOKEN; it blocks when Hookplane cannot be reached (fail closed), and its onFailure \"block\" (Claude Code 2.1.295+) blocks when the CLI cannot run at all",
    );
  }
  return { content: `${JSON.stringify({ hooks: events }, null, 2)}\n`, warnings: ctx.warnings };
}
