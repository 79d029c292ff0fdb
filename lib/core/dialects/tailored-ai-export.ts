/**
 * The tailored-ai exporter: canonical config back into its file.
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
import { isNegatedWhen } from "@/lib/core/hooks/when";
import { DEFAULT_MAX_TURNS } from "@/lib/core/agent/agent-spec";
import type { EventName } from "@/lib/core/hooks/events";
import { type HookSpecInput } from "@/lib/core/hooks/spec";
import { stringify } from "yaml";
import { ExportContext, allHooks, eventOf, scopeOf } from "./export-context";
import type { DialectConfig, ExportOptions, ExportResult } from "./types";
import { ON_EVENTS, TAI_DEFAULT_TOOL_ROUNDS, toolWhen } from "./tailored-ai-vocabulary";

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
    // Each tool round is a model call; Tailored AI's default (10) is left out, Hookplane's (20) written.
    const maxTurns = agent.maxTurns ?? DEFAULT_MAX_TURNS;
    if (maxTurns !== TAI_DEFAULT_TOOL_ROUNDS) entry.maxToolRounds = maxTurns;
    for (const field of ["timeoutMs", "budgetUsd", "dailyBudgetUsd", "dailyBudgetPerPersonUsd", "failMode", "script", "flow", "metadataFile", "retryTools"] as const) {
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
  const { tool, args, skipIf, denyIf } = hook.action;
  if (denyIf !== undefined) ctx.warnHook(hook, "action.denyIf", "beforeRun/afterRun hooks cannot refuse (denyIf is read on hooks.on entries); not exported");
  return { tool, ...(args && Object.keys(args).length > 0 ? { args } : {}), ...(skipIf !== undefined ? { skipIf } : {}), ...onError(hook) };
}

function exportOnHook(hook: HookSpecInput, ctx: ExportContext): TaiHook | undefined {
  const action = hook.action;
  let entry: TaiHook;
  if (action.type === "tool") {
    if (action.skipIf !== undefined) ctx.warnHook(hook, "action.skipIf", "skipIf applies to beforeRun/afterRun hooks only; not exported");
    entry = { tool: action.tool, ...(action.args && Object.keys(action.args).length > 0 ? { args: action.args } : {}) };
    if (typeof action.denyIf === "string") entry.denyIf = action.denyIf;
    else if (action.denyIf !== undefined) {
      // Without its condition the hook would call the tool and never refuse: a guard that guards nothing.
      ctx.warnHook(hook, "action.denyIf", `Tailored AI's denyIf is a regex over the tool's output; it cannot name detectors (${action.denyIf.detects.join(", ")}), so this hook was not exported`);
      return undefined;
    }
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
    else if (isNegatedWhen(hook.when)) ctx.warnHook(hook, "when", "Tailored AI conditions cannot negate; not exported");
    else ctx.warnHook(hook, "when", "Tailored AI conditions compare a field with a value or /regex/; a truthy dot path cannot be exported");
  }
  return { ...entry, ...(Object.keys(when).length > 0 ? { when } : {}), ...onError(hook) };
}
