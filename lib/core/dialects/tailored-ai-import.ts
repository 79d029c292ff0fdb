/**
 * The tailored-ai importer: its file into canonical agents, hooks and schedules.
 *
 * Tailored AI: `config.yaml` with agents under `agents.<name>` (formerly `profiles.<name>`), each
 * with `hooks.beforeRun` / `hooks.afterRun` lists of `{tool, args, skipIf, onError}` and a
 * `hooks.on.<runtime event>` map; a deployment-level `hooks.on`; and `cron.jobs[]` whose own
 * hooks run after the agent's (schedule-scoped hooks, which the runtime orders last).
 *
 * Semantics carried over: hooks fail closed (`onError: abort`, the default, → onFailure block);
 * `skipIf` on a beforeRun hook skips the loop; `when` on `hooks.on` entries matches payload
 * fields exactly or by `/regex/` (the `tool` field becomes the matcher, `agent` the scope).
 */
import { MAX_TURNS_LIMIT, type AgentSpecInput } from "@/lib/core/agent/agent-spec";
import type { EventName } from "@/lib/core/hooks/events";
import type { HookAction } from "@/lib/core/hooks/spec";
import { canonicalModel } from "./agent-models";
import type { ListItem, ObjectReader } from "./field-reader";
import { joinPath } from "./field-reader";
import { ImportContext } from "./import-context";
import { parseYamlSource } from "./source-text";
import type { ImportOptions, ImportResult } from "./types";
import { ON_EVENTS, TAI_DEFAULT_TOOL_ROUNDS } from "./tailored-ai-vocabulary";

const RUN_SLOTS = { beforeRun: "session.start", afterRun: "session.end" } as const satisfies Record<string, EventName>;

/**
 * Tailored AI's `denyIf` refuses when the hook tool's OUTPUT matches. The canonical `tool` action
 * has no such field yet (block's `denyIf` reads the tool INPUT, which is something else), so it is
 * carried only once the spec grows it, and reported otherwise.
 */

export function importTailoredAi(content: string, _options: ImportOptions = {}): ImportResult {
  const ctx = new ImportContext("tailored-ai");
  const root = ctx.reader(parseYamlSource(content, "tailored-ai"), "");
  if (!root) return ctx.finish();

  const rounds = deploymentToolRounds(root.value, ctx);
  const agentNames = new Set<string>();
  for (const key of ["profiles", "agents"] as const) {
    for (const { key: name, value, path } of root.object(key)?.entries() ?? []) {
      if (agentNames.has(name)) {
        ctx.fail(path, `agent "${name}" is defined under both profiles and agents`);
        continue;
      }
      agentNames.add(name);
      const profile = ctx.reader(value, path);
      if (profile) readAgent(profile, name, rounds, ctx);
    }
  }

  const deployment = root.object("hooks");
  for (const entry of deployment?.object("on")?.entries() ?? []) readOnEvent(entry, "global", undefined, ctx);
  deployment?.warnUnread((key) =>
    key in RUN_SLOTS ? `Tailored AI runs ${key} hooks per agent or cron job, not deployment-wide; ignored` : `"${key}" has no Hookplane equivalent; ignored`,
  );

  const cron = root.object("cron");
  const cronEnabled = cron?.boolean("enabled");
  const defaultAgent = { name: agentNames.has(DEFAULT_AGENT) ? `tai-${DEFAULT_AGENT}` : DEFAULT_AGENT, added: false };
  for (const item of cron?.list("jobs") ?? []) {
    const job = ctx.reader(item.value, item.path);
    if (!job) continue;
    const usesDefault = readCronJob(job, item, cronEnabled, defaultAgent.name, ctx);
    if (usesDefault && !defaultAgent.added) {
      // Tailored AI runs such a job with its default agent: the `agent` section's provider and
      // instructions, and every enabled tool.
      ctx.addAgent(
        { name: defaultAgent.name, description: "Tailored AI's default agent (cron jobs that name none)", ...defaultAgentSettings(root.value), tools: ["*"], maxTurns: rounds },
        "agent",
      );
      defaultAgent.added = true;
    }
  }
  cron?.warnUnread();

  root.warnUnread((key) =>
    key === "agent"
      ? `Tailored AI's agent section: its maxToolRounds is every agent's limit (maxTurns) and its provider and instructions the default agent's; its other settings have no Hookplane equivalent and are ignored`
      : `Tailored AI section "${key}" is not about agents or hooks; ignored`,
  );
  return ctx.finish();
}

/** A tool-round limit Hookplane can hold (at most MAX_TURNS_LIMIT model calls), or an error at its path. */
function toolRounds(value: unknown, path: string, ctx: ImportContext): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    ctx.fail(path, `expected a whole number of tool rounds (1 or more), got ${JSON.stringify(value)}`);
    return undefined;
  }
  if (value > MAX_TURNS_LIMIT) {
    ctx.fail(path, `a Hookplane agent makes at most ${MAX_TURNS_LIMIT} model calls per run; got ${value}`);
    return undefined;
  }
  return value;
}

/** The `agent` section's maxToolRounds: every agent's limit unless it sets its own. */
function deploymentToolRounds(root: Record<string, unknown>, ctx: ImportContext): number {
  const section = root.agent;
  const value = section && typeof section === "object" ? (section as Record<string, unknown>).maxToolRounds : undefined;
  return toolRounds(value, "agent.maxToolRounds", ctx) ?? TAI_DEFAULT_TOOL_ROUNDS;
}

function readAgent(profile: ObjectReader, name: string, deploymentRounds: number, ctx: ImportContext): void {
  const agent: AgentSpecInput = { name };
  const description = profile.string("description");
  if (description !== undefined) agent.description = description;
  const model = profile.string("model");
  const provider = profile.string("provider");
  // `provider` names the model's provider when `model` has no prefix of its own.
  const qualified = model !== undefined && provider !== undefined && !model.startsWith(`${provider}:`) ? `${provider}:${model}` : model;
  const canonical = qualified === undefined ? undefined : canonicalModel(qualified, profile.at("model"), ctx, "openai");
  if (canonical) agent.model = canonical;
  const instructions = profile.string("instructions");
  if (instructions !== undefined) agent.instructions = instructions;
  // No `tools`: Tailored AI gives the agent every enabled tool.
  agent.tools = profile.stringList("tools") ?? ["*"];
  // Each tool round is one model call: the agent stops where Tailored AI stops it.
  const own = profile.number("maxToolRounds", { integer: true, positive: true });
  const rounds = own === undefined ? undefined : toolRounds(own, profile.at("maxToolRounds"), ctx);
  if (own === undefined || rounds !== undefined) agent.maxTurns = rounds ?? deploymentRounds;
  ctx.addAgent(agent, profile.path);

  const hooks = profile.object("hooks");
  if (hooks) readRunSlots(hooks, `agent:${name}`, ctx);
  for (const entry of hooks?.object("on")?.entries() ?? []) readOnEvent(entry, `agent:${name}`, name, ctx);
  hooks?.warnUnread();
  profile.warnUnread((key) => `Tailored AI agent field "${key}" has no Hookplane equivalent; ignored`);
}

/** The name of the agent a cron job that names none runs: Tailored AI's default agent. */
const DEFAULT_AGENT = "default";

/** What the `agent` / `providers` sections say about the default agent, where Hookplane can say it too. */
function defaultAgentSettings(root: Record<string, unknown>): Partial<AgentSpecInput> {
  const section = (root.agent ?? {}) as Record<string, unknown>;
  const settings: Partial<AgentSpecInput> = {};
  const provider = section.defaultProvider;
  const providerSection = ((root.providers ?? {}) as Record<string, unknown>)[String(provider)] as Record<string, unknown> | undefined;
  const model = providerSection?.defaultModel;
  if ((provider === "openai" || provider === "anthropic") && typeof model === "string" && model !== "") settings.model = `${provider}:${model}`;
  if (typeof section.extraInstructions === "string" && section.extraInstructions.trim() !== "") settings.instructions = section.extraInstructions;
  return settings;
}

/** Returns true when the job names no agent and so runs the default agent. */
function readCronJob(job: ObjectReader, item: ListItem, cronEnabled: boolean | undefined, defaultAgent: string, ctx: ImportContext): boolean {
  const name = job.string("name") ?? `job-${item.index + 1}`;
  if (!job.has("name")) ctx.warn(item.path, `cron job without a name; imported as schedule "${name}"`);
  const cronExpression = job.string("schedule", { required: true });
  const prompt = job.string("prompt", { required: true });
  const named = job.string("agent") ?? job.string("profile");
  if (named === undefined) ctx.warn(item.path, `names no agent, so Tailored AI runs its default agent; imported as agent "${defaultAgent}" (all tools)`);
  const agent = named ?? defaultAgent;
  const enabled = job.boolean("enabled");
  const hooks = job.object("hooks");
  if (hooks) readRunSlots(hooks, `schedule:${name}`, ctx);
  hooks?.warnUnread((key) => (key === "on" ? "cron job hooks have only beforeRun and afterRun; hooks.on ignored" : `"${key}" has no Hookplane equivalent; ignored`));
  job.warnUnread((key) => `cron job field "${key}" has no Hookplane equivalent; ignored`);
  if (cronExpression === undefined || prompt === undefined) return false;
  const isEnabled = cronEnabled === false ? false : enabled;
  ctx.addSchedule({ name, agent, cron: cronExpression, prompt, ...(isEnabled !== undefined ? { enabled: isEnabled } : {}) }, item.path);
  return named === undefined;
}

/** `onError: abort | continue` → onFailure; abort (fail closed) is the default. */
function readOnFailure(hook: ObjectReader, ctx: ImportContext): "block" | "continue" {
  const onError = hook.string("onError");
  if (onError === undefined || onError === "abort") return "block";
  if (onError === "continue") return "continue";
  ctx.fail(hook.at("onError"), `expected abort or continue, got "${onError}"`);
  return "block";
}

function readToolAction(hook: ObjectReader, ctx: ImportContext): HookAction | undefined {
  const tool = hook.string("tool", { required: true });
  const argsReader = hook.object("args");
  const args = argsReader ? { ...argsReader.value } : {};
  const skipIf = hook.string("skipIf");
  const validSkip = skipIf !== undefined && checkRegex(skipIf, hook.at("skipIf"), ctx);
  return tool === undefined ? undefined : { type: "tool", tool, args, ...(validSkip ? { skipIf } : {}) };
}

/** False (with the error at `path`) when the pattern is no regex. */
function checkRegex(pattern: string, path: string, ctx: ImportContext): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch (error) {
    ctx.fail(path, `invalid regex: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

function readRunSlots(hooks: ObjectReader, scope: string, ctx: ImportContext): void {
  for (const [slot, event] of Object.entries(RUN_SLOTS)) {
    for (const item of hooks.list(slot, { allowSingle: true }) ?? []) {
      const hook = ctx.reader(item.value, item.path);
      if (!hook) continue;
      const action = readToolAction(hook, ctx);
      const onFailure = readOnFailure(hook, ctx);
      hook.warnUnread();
      if (!action) continue;
      const id = ctx.hookId(scope, `${slot === "beforeRun" ? "before-run" : "after-run"}-${item.index + 1}`);
      ctx.addHook({ id, event, scope, action, onFailure }, item.path);
    }
  }
}

/** One `hooks.on.<event>` key: one entry or a list of them. */
function readOnEvent(entry: { key: string; value: unknown; path: string }, scope: string, agent: string | undefined, ctx: ImportContext): void {
  const { key: eventName, value, path } = entry;
  if (!(eventName in ON_EVENTS)) {
    ctx.unknownEvent(path, eventName, Object.keys(ON_EVENTS));
    return;
  }
  const event = ON_EVENTS[eventName];
  if (event === null) {
    ctx.notImported(path, `${eventName} is a phase of the Tailored AI process, not of a run; no Hookplane event, not imported`);
    return;
  }
  const items: ListItem[] = Array.isArray(value)
    ? value.map((v, index) => ({ value: v, path: joinPath(path, index), index }))
    : [{ value, path, index: 0 }];
  for (const item of items) {
    const hook = ctx.reader(item.value, item.path);
    if (!hook) continue;
    let hookScope = scope;
    let action: HookAction | undefined;
    let timeoutMs: number | undefined;
    let claudeProtocol = false;
    if (hook.has("tool")) {
      action = readToolAction(hook, ctx);
    } else if (hook.has("type")) {
      const handler = readHandlerAction(hook, ctx);
      action = handler?.action;
      if (handler?.timeoutMs !== undefined) timeoutMs = handler.timeoutMs;
      if (handler?.claudeProtocol) claudeProtocol = true;
    } else {
      ctx.fail(item.path, "a hooks.on entry needs a `tool:` name (or a handler `type:`)");
    }
    const denyIf = hook.string("denyIf");
    if (denyIf !== undefined) {
      const valid = checkRegex(denyIf, hook.at("denyIf"), ctx);
      // A bad pattern is reported once, at denyIf (not again by the hook schema).
      if (action?.type === "tool" && valid) Object.assign(action, { denyIf });
      else if (action) {
        ctx.changed(
          hook.at("denyIf"),
          `denyIf (refuse when the hook's output matches /${denyIf}/) is read on tool hooks only; a ${action.type} hook refuses by its exit code, so it was not imported`,
        );
      }
    }
    const when = readWhen(hook, agent, ctx);
    if (when.agent !== undefined) hookScope = `agent:${when.agent}`;
    // A `command` handler speaks Claude Code's protocol, where only exit 2 or a deny decision
    // refuses: its other failures and its timeouts let the call through.
    const onFailure = claudeProtocol && !hook.has("onError") ? "continue" : readOnFailure(hook, ctx);
    hook.warnUnread();
    if (!action || when.never) continue;
    const id = ctx.hookId(hookScope, `on-${eventName.replace(/[^A-Za-z0-9]+/g, "-")}-${item.index + 1}`);
    ctx.addHook(
      {
        id,
        event,
        scope: hookScope,
        ...(when.matcher !== undefined ? { matcher: when.matcher } : {}),
        ...(when.condition !== undefined ? { when: when.condition } : {}),
        action,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        onFailure,
      },
      item.path,
    );
  }
}

type HandlerAction = { action: HookAction; timeoutMs?: number; claudeProtocol?: boolean };

/**
 * A handler `type:` entry: `script` (a program, passed the payload as TAI_* env) and `command` (a
 * program speaking Claude Code's hook protocol: the call as JSON on stdin in Claude Code's field
 * names, exit 2 or a deny decision refuses) both become command hooks; Hookplane's command hooks
 * speak that protocol already.
 */
function readHandlerAction(hook: ObjectReader, ctx: ImportContext): HandlerAction | undefined {
  const type = hook.string("type", { required: true });
  if (type === "command") {
    const options = hook.object("options", { required: true });
    const command = options?.string("command", { required: true });
    const timeout = options?.number("timeoutMs", { positive: true, unit: "milliseconds" });
    options?.warnUnread();
    if (command === undefined) return undefined;
    const timeoutMs = timeout === undefined ? undefined : ctx.timeoutMs(timeout, "ms", options!.at("timeoutMs"));
    return { action: { type: "command", command }, ...(timeoutMs !== undefined ? { timeoutMs } : {}), claudeProtocol: true };
  }
  if (type !== "script") {
    ctx.notImported(hook.at("type"), `"${type}" is a handler of a Tailored AI plugin; Hookplane has no equivalent, not imported`);
    hook.ignore("options", `options of the "${type}" handler; not imported with it`);
    return undefined;
  }
  const options = hook.object("options", { required: true });
  const program = options?.string("command", { required: true });
  const args = options?.stringList("args") ?? [];
  options?.warnUnread();
  if (program === undefined) return undefined;
  ctx.warn(hook.at("type"), `Tailored AI runs scripts with its whole process environment; Hookplane does not pass the server's environment to hook commands: they get the payload as TAI_* variables (and as JSON on stdin), Hookplane's hook variables, the secrets they name and the admin's pass-through list (HOOKPLANE_HOOK_ENV_PASSTHROUGH)`);
  return { action: { type: "command", command: shellCommand(program, args) } };
}

/** `sh -c "<script>"` stays the script itself; any other program is quoted into one command line. */
function shellCommand(program: string, args: string[]): string {
  if (/^(\/bin\/)?(ba)?sh$/.test(program) && args[0] === "-c" && args.length === 2) return args[1];
  return [program, ...args].map((part) => (/^[\w./:=@%+-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`)).join(" ");
}

/** Where each top-level `|` and the group closing the `(` at 0 are, skipping escapes and classes. */
function regexShape(re: string): { topLevelAlternation: boolean; firstGroupEnd: number | undefined } {
  let depth = 0;
  let inClass = false;
  let topLevelAlternation = false;
  let firstGroupEnd: number | undefined;
  for (let i = 0; i < re.length; i++) {
    const ch = re[i];
    if (ch === "\\") i++;
    else if (inClass) inClass = ch !== "]";
    else if (ch === "[") inClass = true;
    else if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0 && firstGroupEnd === undefined && re[0] === "(") firstGroupEnd = i;
    else if (ch === "|" && depth === 0) topLevelAlternation = true;
  }
  return { topLevelAlternation, firstGroupEnd };
}

/** `(?:X)` spanning the whole pattern → X. */
function ungroup(re: string): string {
  return re.startsWith("(?:") && regexShape(re).firstGroupEnd === re.length - 1 ? re.slice(3, -1) : re;
}

/**
 * A search regex (Tailored AI tests `/^web_/` anywhere in the name) as the whole-name regex a
 * Hookplane matcher needs (`web_.*`), and back (`/^(?:web_.*)$/`), so both round-trip.
 */
export function wholeNameRegex(search: string): string {
  if (regexShape(search).topLevelAlternation) return `.*(?:${search}).*`;
  const start = search.startsWith("^");
  const end = /(^|[^\\])\$$/.test(search) && search.length > (start ? 1 : 0);
  const inner = ungroup(search.slice(start ? 1 : 0, end ? -1 : undefined));
  const wrapped = regexShape(inner).topLevelAlternation && (!start || !end) ? `(?:${inner})` : inner;
  return `${start ? "" : ".*"}${wrapped}${end ? "" : ".*"}`;
}

type ReadWhen = { matcher?: string; condition?: string; agent?: string; never?: boolean };

const REGEX_LITERAL = /^\/(.*)\/$/;

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * `when: {tool: "exec", agent: "nova", field: "/re/"}`: the tool becomes the matcher, the agent
 * the scope, and one further field the canonical `field: /regex/` condition.
 */
function readWhen(hook: ObjectReader, scopeAgent: string | undefined, ctx: ImportContext): ReadWhen {
  const when = hook.object("when");
  if (!when) return {};
  const result: ReadWhen = {};
  for (const { key, value, path } of when.entries()) {
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      ctx.fail(path, "expected an exact value or a /regex/");
      continue;
    }
    const text = String(value);
    const regex = REGEX_LITERAL.exec(text)?.[1];
    if (regex !== undefined) checkRegex(regex, path, ctx);
    if (key === "tool") {
      // Tailored AI tests a /regex/ anywhere in the name (RegExp.test); a Hookplane matcher must match the whole name.
      result.matcher = regex !== undefined ? wholeNameRegex(regex) : text;
    } else if (key === "agent" && regex === undefined) {
      if (scopeAgent !== undefined && text !== scopeAgent) {
        ctx.warn(path, `this hook belongs to agent "${scopeAgent}" and matches only agent "${text}": it can never fire; not imported`);
        result.never = true;
      } else if (scopeAgent === undefined) result.agent = text;
    } else if (result.condition === undefined) {
      result.condition = `${key}: /${regex ?? `^${escapeRegex(text)}$`}/`;
    } else {
      ctx.changed(path, "Hookplane hooks take one when condition; this further field was ignored");
    }
  }
  return result;
}
