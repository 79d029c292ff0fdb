/**
 * AgenTopology `.at` files: hooks declared topology-wide (`hooks { name { on, matcher, run, type,
 * timeout } }`) or inside `agent name { … }`, in both the `hooks { name {…} }` and the grammar's
 * `hook name {…}` form. Agents (model, tools) and a linear `flow { a -> b }` come along.
 *
 * Semantics carried over: `type: command` (default) runs `run` as a shell command; `type: prompt`
 * injects `run` into the agent's context. AgentStart/AgentStop are the per-agent moments of a
 * flow and map to agent.start/agent.stop (session.start/session.end are SessionStart/SessionEnd).
 * The docs disagree on the timeout unit, so explicit units are honoured and a bare number is read
 * as seconds with a warning. AgenTopology compiles to Claude Code hooks, where only an explicit
 * block stops anything, hence onFailure continue.
 */
import type { AgentSpecInput } from "@/lib/core/agent/agent-spec";
import type { EventName } from "@/lib/core/hooks/events";
import type { HookAction } from "@/lib/core/hooks/spec";
import { canonicalModel } from "./agent-models";
import { AtSyntaxError, parseAt, type AtBlock, type AtField, type AtItem, type AtToken, type AtValue } from "./agentopology-syntax";
import { DialectParseError } from "./dialect-error";
import { parseDuration, toMilliseconds } from "./durations";
import { joinPath } from "./field-reader";
import { ImportContext } from "./import-context";
import type { ImportOptions, ImportResult } from "./types";

const EVENTS: Record<string, EventName> = {
  SessionStart: "session.start",
  SessionEnd: "session.end",
  AgentStart: "agent.start",
  AgentStop: "agent.stop",
  ToolUse: "tool.pre",
  Error: "error",
};
const HOOK_FIELDS = new Set(["on", "matcher", "run", "type", "timeout"]);
/** Claude model aliases the DSL uses → the model ids Hookplane's anthropic provider takes. */
const MODEL_ALIASES: Record<string, string> = {
  opus: "anthropic:claude-opus-4-1",
  sonnet: "anthropic:claude-sonnet-4-5",
  haiku: "anthropic:claude-haiku-4-5",
};

/** Which blocks have fields and nested blocks (the rest, like `flow`, are kept as raw tokens). */
function isStructured(header: AtToken[], parentKind: string): boolean {
  const keyword = header[0].value;
  if (parentKind === "hooks") return true;
  return ["topology", "agent", "hooks", "hook"].includes(keyword);
}

export function importAgentopology(content: string, options: ImportOptions = {}): ImportResult {
  const ctx = new ImportContext("agentopology");
  let items: AtItem[];
  try {
    items = parseAt(content, isStructured);
  } catch (error) {
    if (error instanceof AtSyntaxError) {
      throw new DialectParseError("agentopology", [{ path: "", message: error.message, line: error.line, column: error.column }]);
    }
    throw error;
  }
  if (items.length === 0) ctx.fail("", "the document has no topology, agent or hooks block");
  const globalScope = options.agent ? `agent:${options.agent}` : "global";
  readBody(items, "", globalScope, undefined, ctx);
  return ctx.finish();
}

function headerText(block: AtBlock): string {
  return block.header.map((t) => t.value).join(" ");
}

/** The items of the file, a topology or an agent: agents, hooks, flows; everything else is reported. */
function readBody(items: AtItem[], path: string, scope: string, topology: string | undefined, ctx: ImportContext): void {
  for (const item of items) {
    if (item.kind === "field") {
      ctx.warn(joinPath(path, item.key), `topology field "${item.key}" has no Hookplane equivalent; ignored (line ${item.line})`);
      continue;
    }
    const keyword = item.header[0].value;
    const name = item.header[1]?.value;
    if (keyword === "topology" && item.items) {
      if (!name) ctx.fail(path || "topology", `a topology needs a name (line ${item.line})`);
      readBody(item.items, joinPath("topology", name ?? "unnamed"), scope, name, ctx);
    } else if (keyword === "agent" && item.items) {
      if (!name) ctx.fail(joinPath(path, "agent"), `an agent needs a name (line ${item.line})`);
      else readAgent(item, joinPath(joinPath(path, "agent"), name), ctx);
    } else if (keyword === "hooks" && item.items) {
      readHooksBlock(item.items, joinPath(path, "hooks"), scope, ctx);
    } else if (keyword === "hook" && item.items) {
      if (!name) ctx.fail(joinPath(path, "hook"), `a hook needs a name (line ${item.line})`);
      else readHook(name, item.items, joinPath(joinPath(path, "hooks"), name), item.line, scope, ctx);
    } else if (keyword === "flow") {
      readFlow(item, joinPath(path, "flow"), topology, ctx);
    } else {
      ctx.warn(joinPath(path, keyword), `"${headerText(item)}" block has no Hookplane equivalent; ignored (line ${item.line})`);
    }
  }
}

function scalar(value: AtValue, path: string, ctx: ImportContext): string | undefined {
  if (value.kind === "scalar") return value.text;
  ctx.fail(path, `expected a single value, got a list (line ${value.line})`);
  return undefined;
}

function readAgent(block: AtBlock, path: string, ctx: ImportContext): void {
  const name = block.header[1].value;
  const agent: AgentSpecInput = { name };
  const nested: AtItem[] = [];
  for (const item of block.items ?? []) {
    if (item.kind === "block") {
      nested.push(item);
      continue;
    }
    const fieldPath = joinPath(path, item.key);
    if (item.key === "model") {
      const model = scalar(item.value, fieldPath, ctx);
      if (model !== undefined) {
        const alias = MODEL_ALIASES[model];
        if (alias) ctx.warn(fieldPath, `model alias "${model}" imported as "${alias}"`);
        const canonical = alias ?? canonicalModel(model, fieldPath, ctx, /^(gpt|o\d)/.test(model) ? "openai" : "anthropic");
        if (canonical) agent.model = canonical;
      }
    } else if (item.key === "tools") {
      if (item.value.kind !== "list") ctx.fail(fieldPath, `expected a list like [Read, Write] (line ${item.line})`);
      else agent.tools = item.value.items.map((v, i) => scalar(v, joinPath(fieldPath, i), ctx)).filter((t): t is string => t !== undefined);
    } else if (item.key === "description") {
      agent.description = scalar(item.value, fieldPath, ctx);
    } else {
      ctx.warn(fieldPath, `agent field "${item.key}" has no Hookplane equivalent; ignored (line ${item.line})`);
    }
  }
  ctx.addAgent(agent, path);
  readBody(nested, path, `agent:${name}`, undefined, ctx);
}

function readHooksBlock(items: AtItem[], path: string, scope: string, ctx: ImportContext): void {
  for (const item of items) {
    if (item.kind === "field") {
      ctx.fail(joinPath(path, item.key), `expected a named hook block like \`name { on: … }\`, got a field (line ${item.line})`);
      continue;
    }
    // Both `name { … }` and the grammar's `hook name { … }` inside a hooks block.
    const name = item.header[0].value === "hook" && item.header.length > 1 ? item.header[1].value : item.header[0].value;
    readHook(name, item.items ?? [], joinPath(path, name), item.line, scope, ctx);
  }
}

function readHook(name: string, items: AtItem[], path: string, line: number, scope: string, ctx: ImportContext): void {
  const fields = new Map<string, AtField>();
  for (const item of items) {
    if (item.kind === "block") {
      ctx.warn(joinPath(path, item.header[0].value), `nested block in a hook has no meaning; ignored (line ${item.line})`);
    } else if (!HOOK_FIELDS.has(item.key)) {
      ctx.warn(joinPath(path, item.key), `hook field "${item.key}" has no Hookplane equivalent; ignored (line ${item.line})`);
    } else {
      fields.set(item.key, item);
    }
  }
  const text = (key: string): string | undefined => {
    const field = fields.get(key);
    return field ? scalar(field.value, joinPath(path, key), ctx) : undefined;
  };
  const on = text("on");
  const run = text("run");
  const type = text("type") ?? "command";
  const matcher = text("matcher");
  if (on === undefined) ctx.fail(joinPath(path, "on"), `is required (hook "${name}", line ${line})`);
  if (run === undefined || run.trim() === "") ctx.fail(joinPath(path, "run"), `is required (hook "${name}", line ${line})`);
  if (type !== "command" && type !== "prompt") ctx.fail(joinPath(path, "type"), `expected command or prompt, got "${type}"`);

  const event = on === undefined ? undefined : EVENTS[on];
  if (on !== undefined && !event) {
    ctx.unknownEvent(joinPath(path, "on"), on, Object.keys(EVENTS));
    return;
  }
  const timeoutMs = readTimeout(fields.get("timeout"), joinPath(path, "timeout"), ctx);
  if (type === "prompt" && timeoutMs !== undefined) {
    ctx.warn(joinPath(path, "timeout"), "a prompt hook runs nothing, so its timeout has no meaning; ignored");
  }
  if (!event || run === undefined || run.trim() === "" || (type !== "command" && type !== "prompt")) return;
  const action: HookAction = type === "prompt" ? { type: "context", text: run } : { type: "command", command: run };
  ctx.addHook(
    {
      id: ctx.hookId(scope, name),
      name,
      event,
      scope,
      ...(matcher !== undefined ? { matcher } : {}),
      action,
      ...(type === "command" && timeoutMs !== undefined ? { timeoutMs } : {}),
      onFailure: "continue",
    },
    path,
  );
}

function readTimeout(field: AtField | undefined, path: string, ctx: ImportContext): number | undefined {
  if (!field) return undefined;
  const text = scalar(field.value, path, ctx);
  if (text === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) {
    ctx.warn(path, `timeout ${text} has no unit; assumed seconds (${text}s = ${toMilliseconds(Number(text), "s")} ms). Write ${text}s or ${text}ms to be explicit`);
    return toMilliseconds(Number(text), "s");
  }
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) ctx.fail(path, `"${text}" is not a timeout like 30s, 500ms or 2m (line ${field.line})`);
  return ms;
}

/** `flow { a -> b -> c }` (also split over lines, `a -> b` `b -> c`) → an agent running a, b, c in sequence. */
function readFlow(block: AtBlock, path: string, topology: string | undefined, ctx: ImportContext): void {
  const edges: [string, string][] = [];
  const tokens = block.tokens;
  let simple = true;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind === "punct" && token.value === "->") {
      const from = tokens[i - 1];
      const to = tokens[i + 1];
      if (from?.kind !== "word" || to?.kind !== "word") simple = false;
      else edges.push([from.value, to.value]);
    } else if (token.kind !== "word") simple = false;
  }
  const order: string[] = [];
  if (simple && edges.length > 0) {
    const next = new Map(edges);
    const targets = new Set(edges.map(([, to]) => to));
    const starts = edges.map(([from]) => from).filter((from) => !targets.has(from));
    simple = next.size === edges.length && new Set(starts).size === 1;
    for (let step: string | undefined = starts[0]; simple && step !== undefined; step = next.get(step)) {
      if (order.includes(step)) simple = false;
      else order.push(step);
    }
    simple &&= order.length === edges.length + 1;
  }
  if (!simple || order.length === 0 || !topology) {
    ctx.warn(path, `only a single chain like \`a -> b -> c\` inside a named topology becomes a Hookplane flow; this flow was not imported (line ${block.line})`);
    return;
  }
  ctx.addAgent({ name: topology, description: `Flow of topology ${topology}`, flow: order }, path);
}
