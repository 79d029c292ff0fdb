/**
 * The herdctl exporter: canonical config back into its file.
 *
 * herdctl: one agent per YAML file, with `hooks.after_run` / `hooks.on_error` lists of shell,
 * webhook, discord and slack hooks, and `schedules` (interval or cron).
 *
 * Semantics carried over: `continue_on_error` (default true) becomes onFailure continue/block,
 * `on_events` becomes onOutcomes, `when` is kept; shell timeouts default to 30 s and webhook
 * timeouts to 10 s; `${ENV}` in webhook headers and channels becomes `${secret:ENV}`.
 */
import { isNegatedWhen } from "@/lib/core/hooks/when";
import { DEFAULT_MAX_TURNS } from "@/lib/core/agent/agent-spec";
import { type EventName } from "@/lib/core/hooks/events";
import type { HookSpecInput } from "@/lib/core/hooks/spec";
import { stringify } from "yaml";
import { bareModel } from "./agent-models";
import { formatDuration } from "./durations";
import { ExportContext, eventOf, exportedAgent, partitionHooksForAgent } from "./export-context";
import { kebabCase } from "./hook-ids";
import { secretToEnvReferences } from "./secret-references";
import type { DialectConfig, ExportOptions, ExportResult } from "./types";
import { HERDCTL_OUTCOMES, DEFAULT_TIMEOUT_MS, HERDCTL_UNLIMITED_TURNS } from "./herdctl-vocabulary";

const EVENT_BUCKETS: Partial<Record<EventName, string>> = { "session.end": "after_run", "error": "on_error" };

export function exportHerdctl(config: DialectConfig, options: ExportOptions = {}): ExportResult {
  const ctx = new ExportContext("herdctl");
  const agent = exportedAgent(config, ctx, options.agent, "a herdctl file");
  const doc: Record<string, unknown> = { name: agent.name };
  if (agent.description !== undefined) doc.description = agent.description;
  if (agent.model !== undefined) {
    const model = bareModel(agent.model);
    if (model) doc.model = model;
    else ctx.warn("agent.model", `herdctl runs Claude models only; "${agent.model}" not exported`);
  }
  // An agent's limit always holds: left unset it is Hookplane's default, written as such (herdctl
  // would otherwise run it without a limit); the highest limit stands for herdctl's "none".
  const maxTurns = agent.maxTurns ?? DEFAULT_MAX_TURNS;
  if (maxTurns !== HERDCTL_UNLIMITED_TURNS) doc.max_turns = maxTurns;
  // herdctl has no run timeout (session.timeout is how long a session may be resumed).
  if (agent.timeoutMs !== undefined) ctx.warn("agent.timeoutMs", "herdctl has no run timeout; not exported");
  if (agent.metadataFile !== undefined) doc.metadata_file = agent.metadataFile;
  if (agent.instructions !== undefined) doc.system_prompt = agent.instructions;
  // All tools is herdctl's default (no allowed_tools); an empty list is written, it means none.
  if (agent.tools !== undefined && !agent.tools.includes("*")) doc.allowed_tools = agent.tools;
  for (const field of ["budgetUsd", "dailyBudgetUsd", "dailyBudgetPerPersonUsd", "failMode", "script", "flow"] as const) {
    if (agent[field] !== undefined) ctx.warn(`agent.${field}`, `herdctl has no ${field}; not exported`);
  }

  const { agentHooks, scheduleHooks } = partitionHooksForAgent(config, agent.name, ctx);
  const schedules: Record<string, unknown> = {};
  for (const schedule of config.schedules) {
    if (schedule.agent !== agent.name) {
      ctx.warn(`schedules.${schedule.name}`, `belongs to agent "${schedule.agent}"; not exported`);
      continue;
    }
    schedules[schedule.name] = {
      ...(schedule.intervalMs !== undefined
        ? { type: "interval", interval: formatDuration(schedule.intervalMs) }
        : { type: "cron", expression: schedule.cron }),
      prompt: schedule.prompt,
      ...(schedule.enabled === false ? { enabled: false } : {}),
    };
  }
  for (const hooks of scheduleHooks.values()) {
    for (const hook of hooks) ctx.warnHook(hook, "scope", "herdctl has no schedule hooks; not exported");
  }
  if (Object.keys(schedules).length > 0) doc.schedules = schedules;

  const buckets: Record<string, unknown[]> = {};
  for (const hook of agentHooks) {
    if (ctx.skipsInactive(hook)) continue;
    const bucket = EVENT_BUCKETS[eventOf(hook)];
    if (!bucket) {
      ctx.warnHook(hook, "event", `herdctl hooks run after a job (session.end) or on failure (error); ${eventOf(hook)} not exported`);
      continue;
    }
    // A hook without a name whose id is the one its position gives back on import needs no name.
    const positionId = `${kebabCase(bucket)}-${(buckets[bucket]?.length ?? 0) + 1}`;
    const entry = exportHook(hook, ctx, hook.name === undefined && hook.id === positionId);
    if (entry) (buckets[bucket] ??= []).push(entry);
  }
  if (Object.keys(buckets).length > 0) doc.hooks = buckets;
  return { content: stringify(doc, { lineWidth: 0 }), warnings: ctx.warnings };
}

function exportHook(hook: HookSpecInput, ctx: ExportContext, anonymous: boolean): Record<string, unknown> | undefined {
  const action = hook.action;
  let body: Record<string, unknown>;
  let defaultTimeout: number | undefined;
  switch (action.type) {
    case "command":
      if (action.secrets?.length) ctx.warnHook(hook, "action.secrets", "herdctl shell hooks see the whole environment; secrets not exported");
      body = { type: "shell", command: action.command };
      defaultTimeout = DEFAULT_TIMEOUT_MS.shell;
      break;
    case "webhook": {
      const headers = Object.fromEntries(Object.entries(action.headers ?? {}).map(([k, v]) => [k, secretToEnvReferences(v)]));
      body = {
        type: "webhook",
        url: secretToEnvReferences(action.url),
        ...(action.method && action.method !== "POST" ? { method: action.method } : {}),
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
      };
      defaultTimeout = DEFAULT_TIMEOUT_MS.webhook;
      break;
    }
    case "discord":
    case "slack":
      body = { type: action.type, channel_id: secretToEnvReferences(action.channel), bot_token_env: action.tokenSecret };
      break;
    default:
      ctx.warnHook(hook, "action", `herdctl has shell, webhook, discord and slack hooks; the ${action.type} action was not exported`);
      return undefined;
  }
  const entry: Record<string, unknown> = anonymous ? { ...body } : { name: hook.name ?? hook.id, ...body };
  if (hook.name === undefined && !anonymous) ctx.warnHook(hook, "id", "herdctl hooks have no id; the id was exported as the hook's name");
  if (hook.onFailure === "block") entry.continue_on_error = false;
  // herdctl reads `when` as a truthy dot path: a negated one would name no field there.
  if (hook.when !== undefined && isNegatedWhen(hook.when)) ctx.warnHook(hook, "when", "herdctl conditions cannot negate; exported without it");
  else if (hook.when !== undefined) entry.when = hook.when;
  if (hook.onOutcomes !== undefined) {
    const kept = hook.onOutcomes.filter((o) => HERDCTL_OUTCOMES.includes(o));
    if (kept.length !== hook.onOutcomes.length) {
      ctx.warnHook(hook, "onOutcomes", `herdctl filters on ${HERDCTL_OUTCOMES.join(", ")} only; the other outcomes were dropped`);
    }
    if (hook.event === "session.end") entry.on_events = kept;
    else ctx.warnHook(hook, "onOutcomes", "herdctl filters outcomes on after_run hooks only; not exported");
  }
  if (hook.matcher !== undefined) ctx.warnHook(hook, "matcher", "herdctl hooks have no matcher; exported without it");
  if (hook.timeoutMs !== undefined) {
    if (defaultTimeout === undefined) ctx.warnHook(hook, "timeoutMs", `herdctl ${action.type} hooks have no timeout; not exported`);
    else if (hook.timeoutMs !== defaultTimeout) entry.timeout = hook.timeoutMs;
  }
  return entry;
}
