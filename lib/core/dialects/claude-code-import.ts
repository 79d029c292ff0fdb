/**
 * Claude Code, the importer (its exporter: claude-code-export.ts): `settings.json` (`{hooks: {PreToolUse: [{matcher, hooks: [{type, command, timeout}]}]}}`)
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
import { compileMatcher } from "@/lib/core/hooks/matcher";
import type { HookSpecInput } from "@/lib/core/hooks/spec";
import { agentOfBridge, BRIDGE_COMMAND } from "./bridge-command";
import { CLAUDE_AGENT_EVENTS, CLAUDE_CODE_EVENTS, CLAUDE_TO_CANONICAL, CLAUDE_TOOL_EVENTS, type ClaudeCodeEvent } from "./claude-code-events";
import { DEFAULT_TIMEOUT_S, FAILED_TOOL } from "./claude-code-vocabulary";
import { looksLikePermissionRule, parsePermissionRule } from "./claude-permission-rule";
import { kebabCase } from "./hook-ids";
import { ImportContext } from "./import-context";
import { parseJsonSource } from "./source-text";
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
