/**
 * Claude Code, the importer (its exporter: claude-code-export.ts): `settings.json` (`{hooks: {PreToolUse: [{matcher, hooks: [{type, command, timeout}]}]}}`)
 * and a plugin's `hooks.json` (the same `hooks` object with an optional `description`).
 *
 * Semantics carried over: timeouts are seconds (default 600); a command blocks by exiting 2, and
 * any other failure lets the action go on (`onFailure: "continue"`) unless the hook says
 * `onFailure: "block"` (Claude Code 2.1.295+; ignored on Stop, SubagentStop, TaskCompleted,
 * TeammateIdle and async hooks). Exec-form `args` become quoted shell words. A command hook keeps
 * running where Claude Code ran it, on the developer's machine (`runsOn: "agent"`, runs-on.ts). Events: every one Claude
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
import { compileMatcher } from "@/lib/core/hooks/matcher";
import type { HookAction, HookSpecInput } from "@/lib/core/hooks/spec";
import { agentOfBridge, BRIDGE_COMMAND } from "./bridge-command";
import {
  CLAUDE_AGENT_EVENTS,
  CLAUDE_CODE_EVENTS,
  CLAUDE_ON_FAILURE_IGNORED,
  CLAUDE_TO_CANONICAL,
  CLAUDE_TOOL_EVENTS,
  type ClaudeCodeEvent,
} from "./claude-code-events";
import { DEFAULT_TIMEOUT_S, FAILED_TOOL } from "./claude-code-vocabulary";
import { isWellFormedRule, looksLikePermissionRule, parsePermissionRule } from "./claude-permission-rule";
import { kebabCase } from "./hook-ids";
import type { ObjectReader } from "./field-reader";
import { startJsonImport, type ImportContext } from "./import-context";
import type { ImportOptions, ImportResult } from "./types";

const BRIDGE_URL = /\/api\/v1\/ingest\/(?:claude-code|codex)\/?$/;

function isMatcherRegex(matcher: string): boolean {
  try {
    compileMatcher(matcher);
    return true;
  } catch {
    return false;
  }
}

/** The SessionStart sources Hookplane's session.start fires on (resume and compact continue a session). */
const STARTING_SOURCES = ["startup", "clear", "fork"] as const;

/**
 * Which of session.start's sources a SessionStart matcher takes: all of them (no condition needed),
 * some (a `when` on the event's `source`, which the bridge sends), or none (the hooks never run at a
 * session's start). A matcher that is no regex is reported as such elsewhere.
 */
function sessionSources(matcher: string): readonly string[] {
  if (!isMatcherRegex(matcher)) return STARTING_SOURCES;
  const matches = compileMatcher(matcher);
  return STARTING_SOURCES.filter((source) => matches(source));
}

/**
 * Imported events whose Claude Code matcher tests a field of the event that is no tool or agent
 * name: SessionEnd's reason, StopFailure's error. The matcher becomes a `when` on the field the
 * bridge records it under, so the hook runs where it ran and nowhere else.
 */
const MATCHED_FIELD: Partial<Record<string, string>> = { SessionEnd: "reason", StopFailure: "message" };

/** A Claude Code matcher (exact, `A|B` or a regex over the whole value) as a whole-value regex. */
function wholeValueRegex(matcher: string): string {
  return `^(?:${matcher.trim()})$`;
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;
/** Path placeholders Claude Code fills into each exec-form argument (as plain text, never through a shell). */
const PLACEHOLDER = /(\$\{CLAUDE_(?:PLUGIN_ROOT|PLUGIN_DATA|PROJECT_DIR)\})/;

/** One exec-form argument as a shell word that means the same: quoted, its path placeholders still filled in. */
function shellWord(arg: string): string {
  if (SAFE_WORD.test(arg)) return arg;
  return arg
    .split(PLACEHOLDER)
    .map((part, i) => (i % 2 === 1 ? `"${part}"` : part === "" ? "" : `'${part.replaceAll("'", "'\\''")}'`))
    .join("") || "''";
}

/**
 * A command hook: `command`, or the exec form (`command` + `args`, run directly without a shell):
 * Hookplane runs a command through the shell, so each argument becomes a quoted word that says the
 * same. A PowerShell hook cannot run under sh: "skip" (reported).
 */
function readCommandAction(hook: ObjectReader, ctx: ImportContext): HookAction | "skip" | undefined {
  const program = hook.string("command", { required: true });
  const args = hook.stringList("args");
  if (hook.string("shell") === "powershell") {
    ctx.notImported(hook.at("shell"), "a PowerShell hook: Hookplane runs commands with sh, where a PowerShell script does not run; not imported");
    return "skip";
  }
  if (program === undefined) return undefined;
  return { type: "command", command: args !== undefined ? [shellWord(program), ...args.map(shellWord)].join(" ") : program };
}

/** A URL on the machine that makes the request (loopback, or a bare host name like `localhost`). */
const LOCAL_URL = /^https?:\/\/(?:[^/@]*@)?(?:localhost|127(?:\.\d+){3}|\[::1\]|0\.0\.0\.0|[A-Za-z0-9-]+)(?::\d+)?(?:[/?#]|$)/i;

/** `$VAR` / `${VAR}` in an http hook's header, as Claude Code interpolates it (upper-case names only). */
const HEADER_VARIABLE = /\$\{([A-Z_][A-Z0-9_]*)\}|\$([A-Z_][A-Z0-9_]*)/g;

/**
 * An `http` hook: Claude Code POSTs the hook's input as JSON and reads the answer as a command's
 * stdout. Hookplane's webhook does the same (its body carries Claude Code's field names, its answer
 * is read the same way), on the server. A header's `$VAR` listed in `allowedEnvVars` becomes the
 * secret of that name; one not listed is sent empty by Claude Code, so it is dropped.
 */
function readHttpAction(hook: ObjectReader, ctx: ImportContext): HookAction | undefined {
  const url = hook.string("url", { required: true });
  const allowed = new Set(hook.stringList("allowedEnvVars") ?? []);
  const headers: Record<string, string> = {};
  const headerReader = hook.object("headers");
  for (const { key, value, path } of headerReader?.entries() ?? []) {
    if (typeof value !== "string") {
      ctx.fail(path, "a header value is text");
      continue;
    }
    headers[key] = value.replace(HEADER_VARIABLE, (_, braced?: string, bare?: string) => {
      const name = (braced ?? bare)!;
      if (!allowed.has(name)) {
        ctx.warn(path, `$${name} is not in allowedEnvVars: Claude Code sends it empty, and so does Hookplane`);
        return "";
      }
      ctx.warn(path, `Claude Code reads the environment variable ${name}; Hookplane substitutes the secret "${name}" instead (create it, with the hosts it may be sent to)`);
      return `\${secret:${name}}`;
    });
  }
  if (url !== undefined && LOCAL_URL.test(url)) {
    ctx.warn(hook.at("url"), "Claude Code made this request from the developer's machine; Hookplane's server makes it now, so a local address means the server's own (and its outbound policy may refuse it)");
  }
  return url === undefined ? undefined : { type: "webhook", url, method: "POST", headers };
}

/**
 * `onFailure` (Claude Code 2.1.295+): "block" makes a hook that could not start, timed out or
 * failed count as exit 2 (the action is refused); "continue", the default, lets it go on. Claude
 * Code ignores "block" on turn and task ends and on async hooks: those keep "continue".
 */
function readOnFailure(hook: ObjectReader, eventName: string, ctx: ImportContext): "block" | "continue" {
  const value = hook.string("onFailure");
  if (value === undefined || value === "continue") return "continue";
  if (value !== "block") {
    ctx.fail(hook.at("onFailure"), `expected "continue" or "block", got "${value}"`);
    return "continue";
  }
  if (CLAUDE_ON_FAILURE_IGNORED.has(eventName)) {
    ctx.warn(hook.at("onFailure"), `Claude Code ignores onFailure "block" on ${eventName} (a failure there lets the turn end): imported as onFailure continue, as it ran`);
    return "continue";
  }
  if (hook.value.async === true || hook.value.asyncRewake === true) {
    ctx.warn(hook.at("onFailure"), `Claude Code ignores onFailure "block" on async hooks: imported as onFailure continue, as it ran`);
    return "continue";
  }
  return "block";
}

export function importClaudeCode(content: string, options: ImportOptions = {}): ImportResult {
  const { ctx, root } = startJsonImport("claude-code", content, "Claude Code");
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
      ctx.notImported(path, `Claude Code's ${eventName}: ${mapped.none}; its hooks were not imported`);
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
            // A rule Claude Code reads but Hookplane cannot: its hooks are refused, not widened to every call of the tool.
            if (isWellFormedRule(matcher)) ctx.notImported(group.at("matcher"), `${rule}; its hooks were not imported (without the rule they would run on every ${matcher.slice(0, matcher.indexOf("("))} call)`);
            else ctx.fail(group.at("matcher"), rule);
            continue; // its hooks would only repeat the error as a bad regex
          }
        } else {
          matcher = rule.tool;
          // One `when` per hook: PostToolUseFailure's isError stays, the rule's specifier cannot join it.
          if (when === FAILED_TOOL) ctx.changed(group.at("matcher"), `on PostToolUseFailure only the rule's tool is kept (its specifier and isError cannot both be the when)`);
          else when = rule.when;
        }
      }
      // SessionStart's matcher is the source. session.start is a startup, a /clear or a fork: hooks
      // only for resume/compact never run there, and hooks for some of its sources only are narrowed
      // to them with a `when` on the source (never widened to the others).
      if (eventName === "SessionStart" && matcher !== undefined && matcher !== "*") {
        const sources = sessionSources(matcher);
        if (sources.length === 0) {
          ctx.notImported(group.at("matcher"), `SessionStart "${matcher}" never runs at a session's startup, /clear or fork (session.start); Hookplane has no hook event for resume or compact; its hooks were not imported`);
          continue;
        }
        if (sources.length < STARTING_SOURCES.length) when = `source: /${wholeValueRegex(sources.join("|"))}/`;
        matcher = undefined;
      }
      const field = MATCHED_FIELD[eventName];
      if (field !== undefined && matcher !== undefined && matcher !== "*") {
        if (!isMatcherRegex(matcher)) {
          ctx.fail(group.at("matcher"), `"${matcher}" is not a valid regex`);
          continue;
        }
        when = `${field}: /${wholeValueRegex(matcher)}/`;
        matcher = undefined;
      }
      if (matcher !== undefined && !CLAUDE_TOOL_EVENTS.has(eventName) && !CLAUDE_AGENT_EVENTS.has(eventName)) {
        // Claude Code itself matches nothing on these events (no field to match): the hook runs on each.
        ctx.warn(group.at("matcher"), `${eventName} does not match tool or agent names (Claude Code runs its hooks on every ${eventName}); matcher "${matcher}" ignored`);
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
        if (type !== undefined && type !== "command" && type !== "http") {
          ctx.notImported(hook.at("type"), `Claude Code "${type}" hooks have no Hookplane action (only "command" and "http" are imported); not imported`);
          continue;
        }
        const action = type === "http" ? readHttpAction(hook, ctx) : readCommandAction(hook, ctx);
        if (action === "skip") continue;
        const onFailure = readOnFailure(hook, eventName, ctx);
        const timeoutS = hook.number("timeout", { positive: true, unit: "seconds" }) ?? DEFAULT_TIMEOUT_S;
        // Newer Claude Code: `if` narrows one hook with a permission rule, like a rule-form matcher.
        let hookWhen = when;
        let hookMatcher = matcher;
        const condition = hook.string("if");
        if (condition !== undefined) {
          const rule = parsePermissionRule(condition);
          if (typeof rule === "string") {
            if (isWellFormedRule(condition)) ctx.notImported(hook.at("if"), `${rule}; not imported (without its if it would run on every call the matcher takes)`);
            else ctx.fail(hook.at("if"), rule);
            continue;
          } else if (hookMatcher !== undefined && isMatcherRegex(hookMatcher) && !compileMatcher(hookMatcher)(rule.tool)) {
            // Claude Code never runs it: the tool the rule is about never reaches this group.
            ctx.warn(hook.at("if"), `the rule is about ${rule.tool}, the group's matcher "${hookMatcher}" never is: Claude Code never runs this hook; not imported`);
            continue;
          } else {
            hookMatcher = rule.tool;
            hookWhen = rule.when;
          }
        }
        hook.warnUnread();
        if (action === undefined || type === undefined) continue;
        if (action.type === "command" && BRIDGE_COMMAND.test(action.command)) {
          const agent = agentOfBridge(action.command);
          ctx.warn(hookItem.path, `the Hookplane bridge${agent ? ` (agent ${agent})` : ""}: the hooks it runs live in Hookplane; not imported as a command`);
          continue;
        }
        const spec: HookSpecInput = {
          id: ctx.hookId(scope, `${kebabCase(eventName)}-${position}`),
          event,
          scope,
          ...(hookMatcher !== undefined ? { matcher: hookMatcher } : {}),
          ...(hookWhen !== undefined ? { when: hookWhen } : {}),
          action,
          timeoutMs: Math.round(timeoutS * 1000),
          onFailure,
          // A command ran on the developer's machine, in the project: it stays there (runs-on.ts).
          // An http hook's request is made by Hookplane's server instead (a webhook).
          ...(action.type === "command" ? { runsOn: "agent" as const } : {}),
        };
        ctx.addHook(spec, hookItem.path);
      }
      group.warnUnread();
    }
  }
  root.warnUnread((key) => `Claude Code setting "${key}" is not a hook; not imported`);
  return ctx.finish();
}
