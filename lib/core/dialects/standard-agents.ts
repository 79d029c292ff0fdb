/**
 * Standard Agents (AgentBuilder) hook folders: every module in `agents/hooks/` default-exports
 * `defineHook({type, id, execute})`. Such hooks are code the operator installs, so each becomes a
 * `code` hook (`action: {type: "code", module: id}`) bound to the canonical event that fits its
 * type; types without one are reported. Transform types are marked: their modules receive data
 * and return it modified, which Hookplane allows only from operator-installed code.
 *
 * Semantics carried over: a throwing hook is logged and the original data kept (fail open, hence
 * onFailure continue); a hook runs only where a prompt or agent lists its id, so the `agent`
 * option decides the scope.
 */
import type { EventName } from "@/lib/core/hooks/events";
import { nearestName } from "@/lib/core/hooks/events";
import { findDefineHookCalls } from "./define-hook-source";
import { DialectParseError } from "./dialect-error";
import { isPlainObject, joinPath } from "./field-reader";
import { ImportContext } from "./import-context";
import type { ImportOptions, ImportResult, SourceFiles } from "./types";

type HookType = { event: EventName | null; transform: boolean; when?: string };

const HOOK_TYPES: Record<string, HookType> = {
  filter_messages: { event: "model.pre", transform: true },
  prefilter_llm_history: { event: "model.pre", transform: true },
  before_create_message: { event: null, transform: true },
  before_update_message: { event: null, transform: true },
  before_store_tool_result: { event: "tool.post", transform: true },
  after_tool_call_success: { event: "tool.post", transform: true, when: "isError: /^false$/" },
  after_tool_call_failure: { event: "tool.post", transform: true, when: "isError" },
  after_create_message: { event: null, transform: false },
  after_update_message: { event: null, transform: false },
  after_thread_created: { event: "session.start", transform: false },
  after_subagent_created: { event: "agent.start", transform: false },
  after_system_message: { event: null, transform: false },
};
const SNAKE_CASE = /^[a-z][a-z0-9_]*$/;

/** `{files: {path: source}}` (the API body), a map of files, or one module's source. */
export function standardAgentsFiles(content: string | SourceFiles): SourceFiles {
  if (typeof content !== "string") return content;
  const trimmed = content.trimStart();
  if (trimmed.startsWith("{")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      parsed = undefined; // Not JSON after all: a module that starts with an object literal.
    }
    if (isPlainObject(parsed)) {
      const files = isPlainObject(parsed.files) ? parsed.files : undefined;
      if (!files) throw new DialectParseError("standard-agents", [{ path: "files", message: "expected {files: {path: source}}" }]);
      const bad = Object.entries(files).find(([, source]) => typeof source !== "string");
      if (bad) throw new DialectParseError("standard-agents", [{ path: joinPath("files", bad[0]), message: "expected the file's source text" }]);
      return files as SourceFiles;
    }
  }
  return { "hook.ts": content };
}

export function importStandardAgents(content: string | SourceFiles, options: ImportOptions = {}): ImportResult {
  const ctx = new ImportContext("standard-agents");
  const files = standardAgentsFiles(content);
  const scope = options.agent ? `agent:${options.agent}` : "global";
  if (Object.keys(files).length === 0) ctx.fail("files", "no files given");

  for (const [file, source] of Object.entries(files)) {
    const filePath = joinPath("files", file);
    const calls = findDefineHookCalls(source);
    if (calls.length === 0) {
      ctx.warn(filePath, "no defineHook({...}) call found; the file was skipped");
      continue;
    }
    for (const call of calls) {
      const at = (key: string) => joinPath(filePath, key);
      const line = ` (line ${call.line})`;
      const type = call.properties.get("type");
      const id = call.properties.get("id");
      if (type === undefined || id === undefined) {
        ctx.fail(at(type === undefined ? "type" : "id"), "defineHook needs a type and an id" + line);
        continue;
      }
      if (type === null || id === null) {
        ctx.fail(at(type === null ? "type" : "id"), "must be a string literal so the hook can be read without running the module" + line);
        continue;
      }
      if (!call.properties.has("execute")) ctx.fail(at("execute"), "defineHook needs an execute function" + line);
      for (const key of call.properties.keys()) {
        if (!["type", "id", "execute"].includes(key)) ctx.warn(at(key), `defineHook property "${key}" has no Hookplane equivalent; ignored` + line);
      }
      if (!SNAKE_CASE.test(id)) {
        ctx.fail(at("id"), `"${id}" is not snake_case (lowercase letters, digits and _, starting with a letter)` + line);
        continue;
      }
      const hookType = HOOK_TYPES[type];
      if (!hookType) {
        const hint = nearestName(type, Object.keys(HOOK_TYPES));
        ctx.fail(at("type"), `unknown hook type "${type}"${hint ? `; did you mean "${hint}"?` : ""} (known: ${Object.keys(HOOK_TYPES).join(", ")})`);
        continue;
      }
      if (!ctx.claimHookId(scope, id)) {
        ctx.fail(at("id"), `hook id "${id}" is defined twice` + line);
        continue;
      }
      if (hookType.event === null) {
        ctx.notImported(at("type"), `${type} has no Hookplane event; "${id}" was not imported as a hook (install the module as operator code)` + line);
        continue;
      }
      if (hookType.transform) {
        ctx.warn(
          at("type"),
          `${type} is a transform hook: its module rewrites data and can be declared only as operator-installed code; imported as a code hook on ${hookType.event}${line}`,
        );
      }
      ctx.addHook(
        {
          id,
          event: hookType.event,
          scope,
          ...(hookType.when ? { when: hookType.when } : {}),
          action: { type: "code", module: id },
          onFailure: "continue",
        },
        filePath,
      );
    }
  }
  if (!options.agent) {
    ctx.warn("", "Standard Agents runs a hook only where a prompt or agent lists its id; imported as global hooks (give an agent to scope them)");
  }
  return ctx.finish();
}
