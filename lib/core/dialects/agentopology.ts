/**
 * AgenTopology `.at` files: hooks declared topology-wide (`hooks { hook name { on, matcher, run,
 * type, timeout } }`, also the bare `name { … }` form), inside `agent name { … }`, or in a
 * `fragment name { … }` file. Agents (model, tools) and a linear `flow { a -> b }` come along;
 * every other block is read lazily (never tokenized) and reported.
 *
 * Semantics carried over: `type: command` (default) runs `run` as a shell command; `type: prompt`
 * injects `run` into the agent's context. Events: the universal ones of the spec (SessionStart,
 * SessionEnd, AgentStart, AgentStop, ToolUse, Error) and the Claude Code names its bindings and
 * examples use (PreToolUse = ToolUse, PostToolUse, SubagentStart = AgentStart, SubagentStop =
 * AgentStop, Stop, UserPromptSubmit). `Stop` is what the claude-code binding writes as Claude
 * Code's Stop, which fires after each answer and may keep the agent working: turn.end.
 * AgentStart/AgentStop are the per-agent moments of a flow (agent.start/agent.stop).
 * Timeouts: the spec writes a bare number (default 600, Claude Code's seconds) while the codex,
 * cursor and gemini-cli bindings read milliseconds; explicit units are honoured, and a bare
 * number is read as milliseconds from 1000 up and as seconds below, with a warning either way.
 * AgenTopology compiles to Claude Code hooks, where only an explicit block stops anything,
 * hence onFailure continue.
 */
import { MAX_TURNS_LIMIT, type AgentSpecInput } from "@/lib/core/agent/agent-spec";
import type { EventName } from "@/lib/core/hooks/events";
import type { HookAction } from "@/lib/core/hooks/spec";
import { canonicalModel } from "./agent-models";
import { AtSyntaxError, parseAt, type AtBlock, type AtField, type AtItem, type AtValue } from "./agentopology-syntax";
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
  // The spec's Claude Code names, which its bindings and examples use throughout.
  PreToolUse: "tool.pre",
  PostToolUse: "tool.post",
  SubagentStart: "agent.start",
  SubagentStop: "agent.stop",
  Stop: "turn.end",
  UserPromptSubmit: "user.prompt.submit",
};
/** A bare timeout from this value up is read as milliseconds (the bindings' unit), below as seconds. */
const BARE_MS_FROM = 1000;
const HOOK_FIELDS = new Set(["on", "matcher", "run", "type", "timeout"]);
/** Claude model aliases the DSL uses → the model ids Hookplane's anthropic provider takes. */
const MODEL_ALIASES: Record<string, string> = {
  opus: "anthropic:claude-opus-4-1",
  sonnet: "anthropic:claude-sonnet-4-5",
  haiku: "anthropic:claude-haiku-4-5",
};

/** Which blocks have fields and nested blocks (the rest, like `flow` or `prompt`, stay raw text). */
function isStructured(header: string[], parentKind: string): boolean {
  const keyword = header[0];
  if (parentKind === "hooks") return true;
  if (keyword === "topology" || keyword === "fragment") return parentKind === "root";
  if (keyword === "agent") return parentKind === "root" || parentKind === "topology" || parentKind === "fragment";
  if (keyword === "gates") return parentKind === "topology" || parentKind === "fragment";
  if (keyword === "gate") return parentKind === "gates";
  return ["hooks", "hook"].includes(keyword) && parentKind !== "hook";
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
  return block.header.join(" ");
}

/** The items of the file, a topology, a fragment or an agent: agents, hooks, flows; everything else is reported. */
function readBody(items: AtItem[], path: string, scope: string, topology: string | undefined, ctx: ImportContext): void {
  const agentNames = new Set(
    items.filter((i): i is AtBlock => i.kind === "block" && i.header[0] === "agent" && i.items !== null).map((b) => b.header[1]),
  );
  const gates: AtItem[][] = [];
  for (const item of items) {
    if (item.kind === "field") {
      ctx.warn(joinPath(path, item.key), `topology field "${item.key}" has no Hookplane equivalent; ignored (line ${item.line})`);
      continue;
    }
    if (item.kind === "line") {
      ctx.warn(path || "line", `"${item.text}" has no Hookplane equivalent; ignored (line ${item.line})`);
      continue;
    }
    const keyword = item.header[0];
    const name = item.header[1];
    if ((keyword === "topology" || keyword === "fragment") && item.items) {
      if (!name) ctx.fail(path || keyword, `a ${keyword} needs a name (line ${item.line})`);
      readBody(item.items, joinPath(keyword, name ?? "unnamed"), scope, keyword === "topology" ? name : undefined, ctx);
    } else if (keyword === "agent" && item.items) {
      if (!name) ctx.fail(joinPath(path, "agent"), `an agent needs a name (line ${item.line})`);
      else readAgent(item, joinPath(joinPath(path, "agent"), name), ctx);
    } else if (keyword === "hooks" && item.items) {
      readHooksBlock(item.items, joinPath(path, "hooks"), scope, ctx);
    } else if (keyword === "hook" && item.items) {
      if (!name) ctx.fail(joinPath(path, "hook"), `a hook needs a name (line ${item.line})`);
      else readHook(name, item.items, joinPath(joinPath(path, "hooks"), name), item.line, scope, ctx);
    } else if (keyword === "gates" && item.items) {
      // After the declared hooks, wherever the block stands: the claude-code binding appends
      // the gates' SubagentStop hooks to the hooks it writes, so they run last.
      gates.push(item.items);
    } else if (keyword === "flow") {
      readFlow(item, joinPath(path, "flow"), topology, agentNames, ctx);
    } else {
      ctx.warn(joinPath(path, keyword), `"${headerText(item)}" block has no Hookplane equivalent; ignored (line ${item.line})`);
    }
  }
  for (const gateItems of gates) readGates(gateItems, joinPath(path, "gates"), scope, agentNames, ctx);
}

function scalar(value: AtValue, path: string, ctx: ImportContext): string | undefined {
  if (value.kind === "scalar") return value.text;
  ctx.fail(path, `expected a single value, got a list (line ${value.line})`);
  return undefined;
}

function readAgent(block: AtBlock, path: string, ctx: ImportContext): void {
  const name = block.header[1];
  const agent: AgentSpecInput = { name };
  const nested: AtItem[] = [];
  for (const item of block.items ?? []) {
    if (item.kind === "block" && item.header[0] === "prompt" && item.header.length === 1 && item.items === null) {
      // The agent's own prompt: its system prompt, as the bindings write it into the agent file.
      agent.instructions = dedent(item.raw);
      continue;
    }
    if (item.kind !== "field") {
      nested.push(item);
      continue;
    }
    const fieldPath = joinPath(path, item.key);
    if (item.key === "model") {
      const model = scalar(item.value, fieldPath, ctx);
      if (model === "inherit") {
        ctx.warn(fieldPath, "model inherit: the agent takes its parent's model in AgenTopology; a Hookplane agent names its own, so none was set");
      } else if (model !== undefined) {
        const alias = MODEL_ALIASES[model];
        if (alias) ctx.warn(fieldPath, `model alias "${model}" imported as "${alias}"`);
        // Bare ids of the providers Hookplane runs; anything else (gemini-pro, openrouter/…/…) it cannot.
        const provider = /^claude-/.test(model) ? "anthropic" : /^(gpt-|o\d)/.test(model) ? "openai" : undefined;
        if (alias) agent.model = alias;
        else if (provider) {
          const canonical = canonicalModel(model, fieldPath, ctx, provider);
          if (canonical) agent.model = canonical;
        } else {
          ctx.warn(fieldPath, `model "${model}" is not a Claude or OpenAI model Hookplane can run; the agent uses the default model`);
        }
      }
    } else if (item.key === "tools") {
      if (item.value.kind !== "list") ctx.fail(fieldPath, `expected a list like [Read, Write] (line ${item.line})`);
      else agent.tools = item.value.items.map((v, i) => scalar(v, joinPath(fieldPath, i), ctx)).filter((t): t is string => t !== undefined);
    } else if (item.key === "description") {
      agent.description = scalar(item.value, fieldPath, ctx);
    } else if (item.key === "max-turns") {
      const text = scalar(item.value, fieldPath, ctx);
      const turns = Number(text);
      if (text === undefined) continue;
      if (!/^\d+$/.test(text) || turns < 1) ctx.fail(fieldPath, `expected a whole number of turns (1 or more), got "${text}" (line ${item.line})`);
      else if (turns > MAX_TURNS_LIMIT) ctx.fail(fieldPath, `a Hookplane agent makes at most ${MAX_TURNS_LIMIT} model calls per run; got ${turns} (line ${item.line})`);
      else agent.maxTurns = turns;
    } else {
      ctx.warn(fieldPath, `agent field "${item.key}" has no Hookplane equivalent; ignored (line ${item.line})`);
    }
  }
  // No `tools`: the agent gets every tool (the claude-code binding writes no tools list, so the
  // subagent inherits all of them).
  agent.tools ??= ["*"];
  // No max-turns: the bindings write none, so the agent runs without a limit there; a Hookplane
  // agent always has one, so it gets the highest.
  if (agent.maxTurns === undefined) {
    agent.maxTurns = MAX_TURNS_LIMIT;
    ctx.warn(path, `no max-turns: AgenTopology's bindings set no turn limit; a Hookplane agent always has one (20 unless it says otherwise), so it gets the highest, ${MAX_TURNS_LIMIT} model calls per run. Set max-turns to choose`);
  }
  ctx.addAgent(agent, path);
  readBody(nested, path, `agent:${name}`, undefined, ctx);
}

const GATE_FIELDS = new Set(["after", "before", "run", "checks", "retry", "on-fail", "behavior", "timeout"]);

/**
 * `gates { gate name { after: agent, run: "script", … } }` → a blocking agent.stop hook on that
 * agent, as AgenTopology's claude-code binding wires it (a SubagentStop hook whose failing script
 * exits 2: the agent is kept from stopping and reads why). Advisory gates and gates after
 * something that is not an agent are not wired there either, so they are reported, not imported.
 */
function readGates(items: AtItem[], path: string, scope: string, agents: Set<string>, ctx: ImportContext): void {
  for (const item of items) {
    if (item.kind !== "block" || item.header[0] !== "gate" || !item.header[1] || !item.items) {
      ctx.warn(path, `only \`gate <name> { … }\` blocks are gates; ignored (line ${item.line})`);
      continue;
    }
    const name = item.header[1];
    const gatePath = joinPath(path, name);
    const fields = new Map<string, AtField>();
    for (const field of item.items) {
      if (field.kind === "field" && GATE_FIELDS.has(field.key)) fields.set(field.key, field);
      else ctx.warn(joinPath(gatePath, field.kind === "field" ? field.key : field.kind === "block" ? field.header[0] : "line"), `has no Hookplane equivalent in a gate; ignored (line ${field.line})`);
    }
    const text = (key: string) => {
      const field = fields.get(key);
      return field ? scalar(field.value, joinPath(gatePath, key), ctx) : undefined;
    };
    const run = text("run");
    const after = text("after");
    if (!run) {
      ctx.warn(gatePath, `a gate without \`run\` is a checklist for the orchestrator; nothing to run, not imported (line ${item.line})`);
      continue;
    }
    if (text("behavior") === "advisory") {
      ctx.warn(gatePath, `an advisory gate is not enforced by AgenTopology's bindings (it stays in the docs); not imported (line ${item.line})`);
      continue;
    }
    if (!after || !agents.has(after)) {
      ctx.warn(gatePath, `the gate runs after ${after ? `"${after}", which is not an agent of this topology` : "no agent"}; AgenTopology wires gates as hooks only after an agent, so not imported (line ${item.line})`);
      continue;
    }
    const timeout = text("timeout");
    const timeoutMs = timeout === undefined ? undefined : parseDuration(/^\d+$/.test(timeout) ? `${timeout}s` : timeout);
    if (timeout !== undefined && timeoutMs === undefined) ctx.fail(joinPath(gatePath, "timeout"), `"${timeout}" is not a timeout like 30s or 2m`);
    if (fields.has("retry")) ctx.warn(joinPath(gatePath, "retry"), "Hookplane runs a gate once per stop; a failed gate sends the agent back, and the next stop runs it again; retry ignored");
    if (fields.has("checks")) ctx.warn(joinPath(gatePath, "checks"), "checks name what the script verifies (documentation); ignored");
    if (fields.has("before")) ctx.warn(joinPath(gatePath, "before"), `the gate fires when "${after}" stops; its place before the next step is that order in a linear flow`);
    if (text("on-fail") === "halt") {
      ctx.warn(joinPath(gatePath, "on-fail"), "halt and bounce-back both keep the agent from stopping in AgenTopology's claude-code binding (exit 2); imported as a block that sends the agent back");
    }
    ctx.addHook(
      {
        id: ctx.hookId(scope, `gate-${name}`),
        name: `gate ${name}`,
        event: "agent.stop",
        scope,
        matcher: after,
        action: { type: "command", command: run },
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        // Any failing exit of the gate script blocks: the binding's wrapper turns it into exit 2.
        onFailure: "block",
      },
      gatePath,
    );
  }
}

/** The prompt's text without the indentation it shares and the blank lines around it. */
function dedent(text: string): string {
  const lines = text.split("\n");
  const indents = lines.filter((l) => l.trim() !== "").map((l) => /^[ \t]*/.exec(l)![0].length);
  const common = indents.length > 0 ? Math.min(...indents) : 0;
  const out = lines.map((l) => (l.trim() === "" ? "" : l.slice(common).trimEnd()));
  while (out.length > 0 && out[0] === "") out.shift();
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out.join("\n");
}

function readHooksBlock(items: AtItem[], path: string, scope: string, ctx: ImportContext): void {
  for (const item of items) {
    if (item.kind === "field") {
      ctx.fail(joinPath(path, item.key), `expected a named hook block like \`hook name { on: … }\`, got a field (line ${item.line})`);
      continue;
    }
    if (item.kind === "line") {
      ctx.warn(path, `"${item.text}" is not a hook; ignored (line ${item.line})`);
      continue;
    }
    // Both the grammar's `hook name { … }` and `name { … }` inside a hooks block.
    const name = item.header[0] === "hook" && item.header.length > 1 ? item.header[1] : item.header[0];
    const hasOn = (item.items ?? []).some((i) => i.kind === "field" && i.key === "on");
    if (item.header[0] !== "hook" && !hasOn && name in EVENTS) {
      // Claude Code's settings shape (`PostToolUse { matcher, command }`): AgenTopology's parser
      // reads only hook blocks with an `on`, so this one never ran there; importing it would start it.
      ctx.warn(joinPath(path, name), `"${name} { … }" is not a hook AgenTopology reads (it takes \`hook <name> { on: ${name} … }\`), so it never ran there; not imported (line ${item.line})`);
      continue;
    }
    readHook(name, item.items ?? [], joinPath(path, name), item.line, scope, ctx);
  }
}

function readHook(name: string, items: AtItem[], path: string, line: number, scope: string, ctx: ImportContext): void {
  const fields = new Map<string, AtField>();
  for (const item of items) {
    if (item.kind === "block") {
      ctx.warn(joinPath(path, item.header[0]), `"${headerText(item)}" block in a hook has no Hookplane equivalent; ignored (line ${item.line})`);
    } else if (item.kind === "line") {
      ctx.warn(path, `"${item.text}" is not a hook field; ignored (line ${item.line})`);
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
  // A value that is there but no single value (`on: [A, B]`) was refused as such already.
  if (!fields.has("on")) ctx.fail(joinPath(path, "on"), `is required (hook "${name}", line ${line})`);
  if (!fields.has("run") || run?.trim() === "") ctx.fail(joinPath(path, "run"), `is required (hook "${name}", line ${line})`);
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
    const value = Number(text);
    if (value >= BARE_MS_FROM) {
      ctx.warn(path, `timeout ${text} has no unit; read as milliseconds (${text}ms), as AgenTopology's codex, cursor and gemini-cli bindings read it. Write ${text}ms or ${value / 1000}s to be explicit`);
      return ctx.timeoutMs(value, "ms", path);
    }
    ctx.warn(path, `timeout ${text} has no unit; read as seconds (${text}s = ${toMilliseconds(value, "s")} ms), as the spec's default of 600 and Claude Code read it. Write ${text}s or ${text}ms to be explicit`);
    return ctx.timeoutMs(value, "s", path);
  }
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) {
    ctx.fail(path, `"${text}" is not a timeout like 30s, 500ms or 2m (line ${field.line})`);
    return undefined;
  }
  // A limit error speaks the file's unit: milliseconds if it wrote ms, seconds otherwise.
  return /^\s*\d+(\.\d+)?\s*ms\s*$/i.test(text) ? ctx.timeoutMs(ms, "ms", path) : ctx.timeoutMs(ms / 1000, "s", path);
}

/**
 * `flow { a -> b -> c }` (also split over lines, `a -> b` `b -> c`) → an agent running a, b, c in
 * sequence. Anything else (conditions `[when …]`, fan-out, loops, steps that are not agents of
 * this file) is a graph Hookplane's linear flows cannot run: reported, not imported.
 */
function readFlow(block: AtBlock, path: string, topology: string | undefined, agents: Set<string>, ctx: ImportContext): void {
  const edges: [string, string][] = [];
  let simple = true;
  for (const rawLine of block.raw.split("\n")) {
    const text = rawLine.replace(/(^|\s)(#|\/\/).*$/, "").trim();
    if (text === "") continue;
    const steps = text.split("->").map((s) => s.trim());
    if (steps.length < 2 || steps.some((s) => !/^[A-Za-z0-9_.-]+$/.test(s))) {
      simple = false;
      continue;
    }
    for (let i = 1; i < steps.length; i++) edges.push([steps[i - 1], steps[i]]);
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
  const notAgents = order.filter((step) => !agents.has(step));
  if (notAgents.length > 0) {
    ctx.warn(path, `the flow's steps ${notAgents.map((s) => `"${s}"`).join(", ")} are not agents of this topology (actions, gates or humans); a Hookplane flow runs agents only, so this flow was not imported (line ${block.line})`);
    return;
  }
  ctx.addAgent({ name: topology, description: `Flow of topology ${topology}`, flow: order }, path);
}
