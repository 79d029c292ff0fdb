/**
 * Tailored AI: `config.yaml` with agents under `agents.<name>` (formerly `profiles.<name>`), each
 * with `hooks.beforeRun` / `hooks.afterRun` lists of `{tool, args, skipIf, onError}` and a
 * `hooks.on.<runtime event>` map; a deployment-level `hooks.on`; and `cron.jobs[]` whose own
 * hooks run after the agent's (schedule-scoped hooks, which the runtime orders last).
 *
 * Semantics carried over: hooks fail closed (`onError: abort`, the default, → onFailure block);
 * `skipIf` on a beforeRun hook skips the loop; `when` on `hooks.on` entries matches payload
 * fields exactly or by `/regex/` (the `tool` field becomes the matcher, `agent` the scope).
 */
import type { AgentSpecInput } from "@/lib/core/agent/agent-spec";
import type { EventName } from "@/lib/core/hooks/events";
import { toolAction, type HookAction, type HookSpecInput } from "@/lib/core/hooks/spec";
import { stringify } from "yaml";
import { canonicalModel } from "./agent-models";
import { ExportContext, allHooks, eventOf, scopeOf } from "./export-context";
import type { ListItem, ObjectReader } from "./field-reader";
import { joinPath } from "./field-reader";
import { ImportContext } from "./import-context";
import { parseYamlSource } from "./source-text";
import type { DialectConfig, ExportOptions, ExportResult, ImportOptions, ImportResult } from "./types";

/** Runtime events of `hooks.on` → canonical; null = process lifecycle phases with no run around them. */
const ON_EVENTS: Record<string, EventName | null> = {
  "agent.pre_tool_use": "tool.pre",
  "agent.post_tool_use": "tool.post",
  "approval.requested": "approval.requested",
  "approval.settled": "approval.settled",
  "tai:init:start": null,
  "tai:init:end": null,
  "tai:shutdown:start": null,
  "tai:shutdown:end": null,
};
const RUN_SLOTS = { beforeRun: "session.start", afterRun: "session.end" } as const satisfies Record<string, EventName>;

/**
 * Tailored AI's `denyIf` refuses when the hook tool's OUTPUT matches. The canonical `tool` action
 * has no such field yet (block's `denyIf` reads the tool INPUT, which is something else), so it is
 * carried only once the spec grows it, and reported otherwise.
 */
const TOOL_ACTION_HAS_DENY_IF = "denyIf" in toolAction.shape;

export function importTailoredAi(content: string, _options: ImportOptions = {}): ImportResult {
  const ctx = new ImportContext("tailored-ai");
  const root = ctx.reader(parseYamlSource(content, "tailored-ai"), "");
  if (!root) return ctx.finish();

  const agentNames = new Set<string>();
  for (const key of ["profiles", "agents"] as const) {
    for (const { key: name, value, path } of root.object(key)?.entries() ?? []) {
      if (agentNames.has(name)) {
        ctx.fail(path, `agent "${name}" is defined under both profiles and agents`);
        continue;
      }
      agentNames.add(name);
      const profile = ctx.reader(value, path);
      if (profile) readAgent(profile, name, ctx);
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
      ctx.addAgent({ name: defaultAgent.name, description: "Tailored AI's default agent (cron jobs that name none)", ...defaultAgentSettings(root.value), tools: ["*"] }, "agent");
      defaultAgent.added = true;
    }
  }
  cron?.warnUnread();

  root.warnUnread((key) => `Tailored AI section "${key}" is not about agents or hooks; ignored`);
  return ctx.finish();
}

function readAgent(profile: ObjectReader, name: string, ctx: ImportContext): void {
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
  if (skipIf !== undefined) checkRegex(skipIf, hook.at("skipIf"), ctx);
  return tool === undefined ? undefined : { type: "tool", tool, args, ...(skipIf !== undefined ? { skipIf } : {}) };
}

function checkRegex(pattern: string, path: string, ctx: ImportContext): void {
  try {
    new RegExp(pattern);
  } catch (error) {
    ctx.fail(path, `invalid regex: ${error instanceof Error ? error.message : String(error)}`);
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
    ctx.warn(path, `${eventName} is a phase of the Tailored AI process, not of a run; no Hookplane event, not imported`);
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
      checkRegex(denyIf, hook.at("denyIf"), ctx);
      if (action?.type === "tool" && TOOL_ACTION_HAS_DENY_IF) Object.assign(action, { denyIf });
      else {
        ctx.warn(
          hook.at("denyIf"),
          `denyIf (refuse when the hook's output matches /${denyIf}/) has no field on Hookplane's ${action?.type ?? "tool"} action yet; imported without it, so this hook will not refuse`,
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
    ctx.warn(hook.at("type"), `"${type}" is a handler of a Tailored AI plugin; Hookplane has no equivalent, not imported`);
    hook.ignore("options", `options of the "${type}" handler; not imported with it`);
    return undefined;
  }
  const options = hook.object("options", { required: true });
  const program = options?.string("command", { required: true });
  const args = options?.stringList("args") ?? [];
  options?.warnUnread();
  if (program === undefined) return undefined;
  ctx.warn(hook.at("type"), "Tailored AI passes the payload to scripts as TAI_* environment variables; Hookplane commands get it as JSON on stdin");
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

/** A whole-name matcher as Tailored AI's `when.tool`: an exact name, or an anchored /regex/. */
function toolWhen(matcher: string): string {
  return /^[\w.-]+$/.test(matcher) ? matcher : `/^(?:${matcher})$/`;
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
      ctx.warn(path, "Hookplane hooks take one when condition; this further field was ignored");
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Export

const EXPORT_ON_EVENTS = Object.fromEntries(
  Object.entries(ON_EVENTS).filter(([, event]) => event !== null).map(([name, event]) => [event, name]),
) as Partial<Record<EventName, string>>;
const CONDITION = /^([\w.]+):\s*\/(.*)\/$/;

type TaiHook = Record<string, unknown>;
type TaiHooks = { beforeRun?: TaiHook[]; afterRun?: TaiHook[]; on?: Record<string, TaiHook[]> };

export function exportTailoredAi(config: DialectConfig, options: ExportOptions = {}): ExportResult {
  const ctx = new ExportContext("tailored-ai");
  const agents: Record<string, Record<string, unknown>> = {};
  const agentHooks = new Map<string, TaiHooks>();
  const deploymentOn: Record<string, TaiHook[]> = {};
  const wantedAgents = config.agents.filter((a) => !options.agent || a.name === options.agent);

  for (const agent of wantedAgents) {
    const entry: Record<string, unknown> = {};
    if (agent.description !== undefined) entry.description = agent.description;
    if (agent.model !== undefined) {
      if (agent.model === "scripted") ctx.warn(`agents.${agent.name}.model`, 'Tailored AI has no "scripted" model; not exported');
      else entry.model = agent.model;
    }
    if (agent.instructions !== undefined) entry.instructions = agent.instructions;
    // All tools is Tailored AI's default: no `tools` key.
    if (agent.tools !== undefined && !agent.tools.includes("*")) entry.tools = agent.tools;
    for (const field of ["maxTurns", "timeoutMs", "budgetUsd", "dailyBudgetUsd", "script", "flow", "metadataFile"] as const) {
      if (agent[field] !== undefined) ctx.warn(`agents.${agent.name}.${field}`, `Tailored AI agents have no ${field}; not exported`);
    }
    agents[agent.name] = entry;
  }

  const scheduleHooks = new Map<string, TaiHooks>();
  for (const hook of allHooks(config)) {
    const scope = scopeOf(hook);
    if (options.agent && scope !== "global" && scope !== `agent:${options.agent}` && !scope.startsWith("schedule:")) continue;
    if (ctx.skipsInactive(hook)) continue;
    const [kind, owner] = scope === "global" ? ["global", ""] : [scope.slice(0, scope.indexOf(":")), scope.slice(scope.indexOf(":") + 1)];
    const event = eventOf(hook);
    const slot = event === "session.start" ? "beforeRun" : event === "session.end" ? "afterRun" : undefined;
    if (slot) {
      if (kind === "global") {
        ctx.warnHook(hook, "scope", `Tailored AI runs ${slot} hooks per agent or cron job; the global hook was not exported`);
        continue;
      }
      const entry = exportRunHook(hook, ctx);
      if (!entry) continue;
      const target = kind === "schedule" ? scheduleHooks : agentHooks;
      const hooks = target.get(owner) ?? {};
      target.set(owner, hooks);
      (hooks[slot] ??= []).push(entry);
      continue;
    }
    const onEvent = EXPORT_ON_EVENTS[event];
    if (!onEvent) {
      ctx.warnHook(hook, "event", `Tailored AI has no runtime event for ${event}; not exported`);
      continue;
    }
    if (kind === "schedule") {
      ctx.warnHook(hook, "scope", "Tailored AI cron jobs have only beforeRun and afterRun hooks; not exported");
      continue;
    }
    const entry = exportOnHook(hook, ctx);
    if (!entry) continue;
    if (kind === "global") (deploymentOn[onEvent] ??= []).push(entry);
    else {
      const hooks = agentHooks.get(owner) ?? {};
      agentHooks.set(owner, hooks);
      ((hooks.on ??= {})[onEvent] ??= []).push(entry);
    }
  }

  for (const [name, hooks] of agentHooks) {
    if (!agents[name]) {
      ctx.warn(`agents.${name}`, "hooks of an agent that is not in the export; the agent was added with its hooks only");
      agents[name] = {};
    }
    agents[name].hooks = hooks;
  }

  const jobs: Record<string, unknown>[] = [];
  for (const schedule of config.schedules) {
    if (options.agent && schedule.agent !== options.agent) continue;
    if (schedule.cron === undefined) {
      ctx.warn(`schedules.${schedule.name}`, "Tailored AI cron jobs need a cron expression; interval schedules were not exported");
      continue;
    }
    const hooks = scheduleHooks.get(schedule.name);
    jobs.push({
      name: schedule.name,
      schedule: schedule.cron,
      prompt: schedule.prompt,
      agent: schedule.agent,
      ...(schedule.enabled !== undefined ? { enabled: schedule.enabled } : {}),
      ...(hooks ? { hooks } : {}),
    });
  }

  const doc: Record<string, unknown> = {};
  if (Object.keys(agents).length > 0) doc.agents = agents;
  if (Object.keys(deploymentOn).length > 0) doc.hooks = { on: deploymentOn };
  if (jobs.length > 0) doc.cron = { jobs };
  return { content: stringify(doc, { lineWidth: 0 }), warnings: ctx.warnings };
}

function warnCommonFields(hook: HookSpecInput, ctx: ExportContext): void {
  if (hook.timeoutMs !== undefined) ctx.warnHook(hook, "timeoutMs", "Tailored AI hooks have no timeout; not exported");
  if (hook.onOutcomes !== undefined) ctx.warnHook(hook, "onOutcomes", "Tailored AI hooks cannot filter by outcome; not exported");
  if (hook.name !== undefined) ctx.warnHook(hook, "name", "Tailored AI hooks have no name; not exported");
}

function onError(hook: HookSpecInput): TaiHook {
  return hook.onFailure === "continue" ? { onError: "continue" } : {};
}

function exportRunHook(hook: HookSpecInput, ctx: ExportContext): TaiHook | undefined {
  if (hook.action.type !== "tool") {
    ctx.warnHook(hook, "action", `Tailored AI beforeRun/afterRun hooks call tools; the ${hook.action.type} action was not exported`);
    return undefined;
  }
  warnCommonFields(hook, ctx);
  if (hook.matcher !== undefined) ctx.warnHook(hook, "matcher", "beforeRun/afterRun hooks have no matcher; not exported");
  if (hook.when !== undefined) ctx.warnHook(hook, "when", "beforeRun/afterRun hooks have no condition; not exported");
  const { tool, args, skipIf } = hook.action;
  return { tool, ...(args && Object.keys(args).length > 0 ? { args } : {}), ...(skipIf !== undefined ? { skipIf } : {}), ...onError(hook) };
}

function exportOnHook(hook: HookSpecInput, ctx: ExportContext): TaiHook | undefined {
  const action = hook.action;
  let entry: TaiHook;
  if (action.type === "tool") {
    if (action.skipIf !== undefined) ctx.warnHook(hook, "action.skipIf", "skipIf applies to beforeRun/afterRun hooks only; not exported");
    entry = { tool: action.tool, ...(action.args && Object.keys(action.args).length > 0 ? { args: action.args } : {}) };
    const denyIf = (action as { denyIf?: unknown }).denyIf;
    if (typeof denyIf === "string") entry.denyIf = denyIf;
  } else if (action.type === "command") {
    entry = { type: "script", options: { command: "sh", args: ["-c", action.command] } };
  } else {
    ctx.warnHook(hook, "action", `Tailored AI hooks.on entries call tools or scripts; the ${action.type} action was not exported`);
    return undefined;
  }
  warnCommonFields(hook, ctx);
  const when: Record<string, string> = {};
  if (hook.matcher !== undefined && hook.matcher !== "*") {
    when.tool = toolWhen(hook.matcher);
  }
  if (hook.when !== undefined) {
    const condition = CONDITION.exec(hook.when);
    if (condition) when[condition[1]] = `/${condition[2]}/`;
    else ctx.warnHook(hook, "when", "Tailored AI conditions compare a field with a value or /regex/; a truthy dot path cannot be exported");
  }
  return { ...entry, ...(Object.keys(when).length > 0 ? { when } : {}), ...onError(hook) };
}
