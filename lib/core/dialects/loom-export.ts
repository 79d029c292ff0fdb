/**
 * The loom exporter: canonical config back into its file.
 *
 * Ownware Loom: a profile's `agent.json`, whose `hooks` object has event buckets (onStart,
 * onToolCall, onToolEnd, onModelCall, onModelEnd, onComplete, onError), each a list of
 * `{action, …}` with action log | webhook | save_json | approve | command.
 *
 * Semantics carried over: command hooks time out after 5 s and fail closed (onFailure block);
 * approvals wait `security.hitlTimeoutMs` (default 30 minutes) and then deny; `approve` is valid
 * only in onToolCall (Loom refuses the profile otherwise, so this importer does too); webhooks,
 * logs and save_json are observe-only (onFailure continue).
 */
import { type EventName } from "@/lib/core/hooks/events";
import { formatDuration, parseDuration } from "./durations";
import { ExportContext, eventOf, exportedAgent, partitionHooksForAgent } from "./export-context";
import type { DialectConfig, ExportOptions, ExportResult } from "./types";
import { BUCKET_EVENTS, COMMAND_TIMEOUT_MS, HITL_TIMEOUT_MS, LOOM_DEFAULT_MODEL, LOOM_DEFAULT_MAX_TURNS, LOOM_DEFAULT_TIMEOUT } from "./loom-vocabulary";

const EVENT_BUCKETS = Object.fromEntries(Object.entries(BUCKET_EVENTS).map(([bucket, event]) => [event, bucket])) as Partial<
  Record<EventName, string>
>;

/** What Loom does on a failing hook of each action; fixed, not configurable. */
const FIXED_ON_FAILURE: Record<string, "block" | "continue"> = {
  log: "continue",
  webhook: "continue",
  save_json: "continue",
  approve: "block",
  command: "block",
};

export function exportLoom(config: DialectConfig, options: ExportOptions = {}): ExportResult {
  const ctx = new ExportContext("loom");
  const agent = exportedAgent(config, ctx, options.agent, "an agent.json");
  for (const schedule of config.schedules) {
    ctx.warn(`schedules.${schedule.name}`, "Loom schedules live in the gateway, not in agent.json; not exported");
  }

  const doc: Record<string, unknown> = { name: agent.name };
  if (agent.description !== undefined) doc.description = agent.description;
  if (agent.model !== undefined) {
    if (agent.model === "scripted") ctx.warn("agent.model", 'Loom has no "scripted" model; not exported');
    else doc.model = agent.model;
  } else {
    ctx.warn("agent.model", `the agent names no model (Hookplane's default); Loom runs ${LOOM_DEFAULT_MODEL} when none is given`);
  }
  if (agent.instructions !== undefined) doc.systemPrompt = agent.instructions;
  // Loom's own defaults (100 turns, 30 minutes, preset full) are left out: Loom applies them.
  if (agent.maxTurns !== undefined && agent.maxTurns !== LOOM_DEFAULT_MAX_TURNS) doc.maxTurns = agent.maxTurns;
  if (agent.tools !== undefined && !agent.tools.includes("*")) doc.tools = agent.tools.length > 0 ? { allow: agent.tools } : { preset: "none" };
  const execution: Record<string, unknown> = {};
  if (agent.timeoutMs !== undefined && agent.timeoutMs !== parseDuration(LOOM_DEFAULT_TIMEOUT)) execution.timeout = formatDuration(agent.timeoutMs);
  if (agent.budgetUsd !== undefined) execution.maxCostUsd = agent.budgetUsd;
  if (Object.keys(execution).length > 0) doc.execution = execution;
  for (const field of ["dailyBudgetUsd", "dailyBudgetPerPersonUsd", "failMode", "script", "flow", "metadataFile", "retryTools"] as const) {
    if (agent[field] !== undefined) ctx.warn(`agent.${field}`, `Loom profiles have no ${field}; not exported`);
  }

  const { agentHooks, scheduleHooks } = partitionHooksForAgent(config, agent.name, ctx);
  for (const hook of [...scheduleHooks.values()].flat()) ctx.warnHook(hook, "scope", "Loom has no schedule hooks; not exported");

  let hitlTimeoutMs: number | undefined;
  const buckets: Record<string, Record<string, unknown>[]> = {};
  for (const hook of agentHooks) {
    if (ctx.skipsInactive(hook)) continue;
    const bucket = EVENT_BUCKETS[eventOf(hook)];
    if (!bucket) {
      ctx.warnHook(hook, "event", `Loom has no bucket for ${eventOf(hook)}; not exported`);
      continue;
    }
    const action = hook.action;
    let entry: Record<string, unknown>;
    switch (action.type) {
      case "log":
        if (action.message !== undefined) ctx.warnHook(hook, "action.message", "Loom log hooks write a fixed summary; message not exported");
        entry = { action: "log" };
        break;
      case "webhook":
        if ((action.method ?? "POST") !== "POST") ctx.warnHook(hook, "action.method", "Loom webhooks always POST");
        if (Object.keys(action.headers ?? {}).length > 0) ctx.warnHook(hook, "action.headers", "Loom webhooks send no custom headers; not exported");
        entry = { action: "webhook", url: action.url };
        break;
      case "save_json":
        entry = { action: "save_json", path: action.path };
        break;
      case "approve":
        if (bucket !== "onToolCall") {
          ctx.warnHook(hook, "event", "Loom allows approve only before a tool call; not exported");
          continue;
        }
        if ((action.onTimeout ?? "deny") !== "deny") ctx.warnHook(hook, "action.onTimeout", "an unanswered Loom approval is always denied");
        if (action.message !== undefined) ctx.warnHook(hook, "action.message", "Loom approvals have no message; not exported");
        if (action.timeoutMs !== undefined) {
          if (hitlTimeoutMs !== undefined && hitlTimeoutMs !== action.timeoutMs) {
            ctx.warnHook(hook, "action.timeoutMs", `Loom has one approval timeout per profile; ${hitlTimeoutMs} ms kept`);
          } else hitlTimeoutMs = action.timeoutMs;
        }
        entry = { action: "approve", ...(action.tools !== undefined ? { tools: action.tools } : {}) };
        break;
      case "command":
        if (action.secrets?.length) ctx.warnHook(hook, "action.secrets", "Loom command hooks see the gateway's environment; secrets not exported");
        entry = { action: "command", command: action.command };
        break;
      default:
        ctx.warnHook(hook, "action", `Loom's agent.json has log, webhook, save_json, approve and command actions; ${action.type} not exported`);
        continue;
    }
    const fixed = FIXED_ON_FAILURE[action.type];
    if (hook.onFailure !== undefined && hook.onFailure !== fixed) {
      ctx.warnHook(hook, "onFailure", `a failing Loom ${action.type} hook always means ${fixed}`);
    }
    if (action.type === "command" && hook.timeoutMs !== undefined && hook.timeoutMs !== COMMAND_TIMEOUT_MS) {
      ctx.warnHook(hook, "timeoutMs", `Loom's agent.json command hooks time out after ${COMMAND_TIMEOUT_MS} ms; not exported`);
    } else if (action.type !== "command" && hook.timeoutMs !== undefined) {
      ctx.warnHook(hook, "timeoutMs", `Loom ${action.type} hooks have no timeout; not exported`);
    }
    if (hook.matcher !== undefined) ctx.warnHook(hook, "matcher", "Loom hooks have no matcher (approve takes tool globs in action.tools); not exported");
    if (hook.when !== undefined) ctx.warnHook(hook, "when", "Loom hooks have no condition; not exported");
    if (hook.onOutcomes !== undefined) ctx.warnHook(hook, "onOutcomes", "Loom onComplete fires for every outcome; filter not exported");
    if (hook.name !== undefined) ctx.warnHook(hook, "name", "Loom hooks have no name; not exported");
    (buckets[bucket] ??= []).push(entry);
  }
  if (hitlTimeoutMs !== undefined && hitlTimeoutMs !== HITL_TIMEOUT_MS) doc.security = { hitlTimeoutMs };
  if (Object.keys(buckets).length > 0) doc.hooks = buckets;
  return { content: `${JSON.stringify(doc, null, 2)}\n`, warnings: ctx.warnings };
}
