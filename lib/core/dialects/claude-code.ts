/**
 * Claude Code: `settings.json` (`{hooks: {PreToolUse: [{matcher, hooks: [{type, command, timeout}]}]}}`)
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
import type { EventName } from "@/lib/core/hooks/events";
import { compileMatcher } from "@/lib/core/hooks/matcher";
import type { HookSpecInput } from "@/lib/core/hooks/spec";
import { CLAUDE_AGENT_EVENTS, CLAUDE_CODE_EVENTS, CLAUDE_TO_CANONICAL, CLAUDE_TOOL_EVENTS, type ClaudeCodeEvent } from "./claude-code-events";
import { looksLikePermissionRule, parsePermissionRule } from "./claude-permission-rule";
import { ExportContext, allHooks, eventOf, scopeOf } from "./export-context";
import { kebabCase } from "./hook-ids";
import { ImportContext } from "./import-context";
import { parseJsonSource } from "./source-text";
import type { DialectConfig, ExportOptions, ExportResult, ImportOptions, ImportResult } from "./types";

/** Canonical event → the Claude Code event an export writes. session.end → SessionEnd: it fires once per exit, like session.end. */
const EXPORT_EVENT: Partial<Record<EventName, ClaudeCodeEvent>> = {
  "tool.pre": "PreToolUse",
  "tool.post": "PostToolUse",
  "user.prompt.submit": "UserPromptSubmit",
  "session.start": "SessionStart",
  "session.end": "SessionEnd",
  "turn.end": "Stop",
  "agent.start": "SubagentStart",
  "agent.stop": "SubagentStop",
  error: "StopFailure",
};

/** Claude Code's PostToolUse fires on success only; its failures are PostToolUseFailure. */
const FAILED_TOOL = "isError";
const DEFAULT_TIMEOUT_S = 600;
/** The bridge hook as written in settings; recognised on import, with or without npx. */
const BRIDGE_COMMAND = /^\s*(?:npx\s+(?:-y\s+)?)?hookplane\s+hook\s+(?:claude-code|codex|gemini-cli|copilot|cursor)\b/;
const BRIDGE_URL = /\/api\/v1\/ingest\/(?:claude-code|codex)\/?$/;
const agentOfBridge = (command: string) => /--agent(?:=|\s+)["']?([^\s"']+)/.exec(command)?.[1];

function isMatcherRegex(matcher: string): boolean {
  try {
    compileMatcher(matcher);
    return true;
  } catch {
    return false;
  }
}

/** Whether a SessionStart matcher takes the sources Hookplane's session.start stands for. */
function startsSession(matcher: string): boolean {
  if (!isMatcherRegex(matcher)) return true; // reported as a bad matcher elsewhere, not silently dropped
  const matches = compileMatcher(matcher);
  return matches("startup") || matches("clear");
}

export function importClaudeCode(content: string, options: ImportOptions = {}): ImportResult {
  const ctx = new ImportContext("claude-code");
  const root = ctx.reader(parseJsonSource(content, "claude-code"), "");
  if (!root) return ctx.finish();
  const scope = options.agent ? `agent:${options.agent}` : "global";

  root.ignore("description", "a plugin's description has no Hookplane field; ignored");
  // A settings file may hold no hooks at all (permissions, env, model only): nothing to import, said once.
  if (!root.has("hooks")) ctx.warn("hooks", "this Claude Code settings file has no hooks; nothing was imported");
  const events = root.object("hooks");
  for (const { key: eventName, path } of events?.entries() ?? []) {
    if (!(CLAUDE_CODE_EVENTS as readonly string[]).includes(eventName)) {
      ctx.unknownEvent(path, eventName, CLAUDE_CODE_EVENTS);
      continue;
    }
    const mapped = CLAUDE_TO_CANONICAL[eventName as ClaudeCodeEvent];
    if (typeof mapped !== "string") {
      ctx.warn(path, `Claude Code's ${eventName}: ${mapped.none}; its hooks were not imported`);
      continue;
    }
    const event = mapped;
    const groups = events?.list(eventName);
    let position = 0;
    for (const groupItem of groups ?? []) {
      const group = ctx.reader(groupItem.value, groupItem.path);
      if (!group) continue;
      const rawMatcher = group.string("matcher");
      let matcher = rawMatcher === "" ? undefined : rawMatcher;
      let when = eventName === "PostToolUseFailure" ? FAILED_TOOL : undefined;
      if (matcher !== undefined && CLAUDE_TOOL_EVENTS.has(eventName) && looksLikePermissionRule(matcher)) {
        const rule = parsePermissionRule(matcher);
        if (typeof rule === "string") {
          // A regex with a group (`mcp__.*__(edit|read)`) is Claude Code's own matcher form: kept as written.
          if (!isMatcherRegex(matcher)) {
            ctx.fail(group.at("matcher"), rule);
            continue; // its hooks would only repeat the error as a bad regex
          }
        } else {
          matcher = rule.tool;
          // One `when` per hook: PostToolUseFailure's isError stays, the rule's specifier cannot join it.
          if (when === FAILED_TOOL) ctx.warn(group.at("matcher"), `on PostToolUseFailure only the rule's tool is kept (its specifier and isError cannot both be the when)`);
          else when = rule.when;
        }
      }
      // SessionStart's matcher is the source; session.start is a startup or /clear, so hooks only for resume/compact never run there.
      if (eventName === "SessionStart" && matcher !== undefined && !startsSession(matcher)) {
        ctx.warn(group.at("matcher"), `SessionStart "${matcher}" never runs at a session's startup or /clear (session.start); Hookplane has no hook event for resume or compact; its hooks were not imported`);
        continue;
      }
      if (matcher !== undefined && !CLAUDE_TOOL_EVENTS.has(eventName) && !CLAUDE_AGENT_EVENTS.has(eventName)) {
        ctx.warn(group.at("matcher"), `${eventName} does not match tool or agent names; matcher "${matcher}" ignored`);
        matcher = undefined;
      }
      for (const hookItem of group.list("hooks", { required: true }) ?? []) {
        const hook = ctx.reader(hookItem.value, hookItem.path);
        if (!hook) continue;
        position++;
        const type = hook.string("type", { required: true });
        if (type === "http" && BRIDGE_URL.test(hook.string("url") ?? "")) {
          ctx.warn(hookItem.path, "the Hookplane bridge (http): the hooks it runs live in Hookplane; not imported");
          continue;
        }
        if (type !== undefined && type !== "command") {
          ctx.warn(hook.at("type"), `Claude Code "${type}" hooks have no Hookplane action (only "command" is imported); not imported`);
          continue;
        }
        const command = hook.string("command", { required: true });
        const timeoutS = hook.number("timeout", { positive: true, unit: "seconds" }) ?? DEFAULT_TIMEOUT_S;
        // Newer Claude Code: `if` narrows one hook with a permission rule, like a rule-form matcher.
        let hookWhen = when;
        let hookMatcher = matcher;
        const condition = hook.string("if");
        if (condition !== undefined) {
          const rule = parsePermissionRule(condition);
          if (typeof rule === "string") {
            ctx.fail(hook.at("if"), rule);
            continue;
          } else if (hookMatcher !== undefined && hookMatcher !== rule.tool && !hookMatcher.split("|").includes(rule.tool)) {
            ctx.fail(hook.at("if"), `the rule is about ${rule.tool}, the group's matcher "${hookMatcher}" never is`);
            continue;
          } else {
            hookMatcher = rule.tool;
            hookWhen = rule.when;
          }
        }
        hook.warnUnread();
        if (command === undefined || type === undefined) continue;
        if (BRIDGE_COMMAND.test(command)) {
          const agent = agentOfBridge(command);
          ctx.warn(hookItem.path, `the Hookplane bridge${agent ? ` (agent ${agent})` : ""}: the hooks it runs live in Hookplane; not imported as a command`);
          continue;
        }
        if (/\$\{?CLAUDE_PROJECT_DIR\b/.test(command)) {
          ctx.warn(hook.at("command"), "runs on the Hookplane server in the agent's workspace: $CLAUDE_PROJECT_DIR is that folder there, so the files it names must be in it");
        }
        const spec: HookSpecInput = {
          id: ctx.hookId(scope, `${kebabCase(eventName)}-${position}`),
          event,
          scope,
          ...(hookMatcher !== undefined ? { matcher: hookMatcher } : {}),
          ...(hookWhen !== undefined ? { when: hookWhen } : {}),
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

type ClaudeCommandHook = { type: "command"; command: string; timeout?: number };
type ClaudeHttpHook = { type: "http"; url: string; headers: Record<string, string>; allowedEnvVars: string[]; timeout?: number };
type ClaudeHookGroup = { matcher?: string; hooks: (ClaudeCommandHook | ClaudeHttpHook)[] };

/** Bridged whenever anything is: a session's run starts, gets its cost at each turn's end, and finishes. */
const SESSION_EVENTS: readonly ClaudeCodeEvent[] = ["SessionStart", "Stop", "SessionEnd"];

/** The CLI's own default wait (bin/hookplane.mjs), under Claude Code's default hook timeout. */
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
