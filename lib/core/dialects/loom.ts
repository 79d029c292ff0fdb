/**
 * Ownware Loom: a profile's `agent.json`, whose `hooks` object has event buckets (onStart,
 * onToolCall, onToolEnd, onModelCall, onModelEnd, onComplete, onError), each a list of
 * `{action, …}` with action log | webhook | save_json | approve | command.
 *
 * Semantics carried over: command hooks time out after 5 s and fail closed (onFailure block);
 * approvals wait `security.hitlTimeoutMs` (default 30 minutes) and then deny; `approve` is valid
 * only in onToolCall (Loom refuses the profile otherwise, so this importer does too); webhooks,
 * logs and save_json are observe-only (onFailure continue).
 */
import type { AgentSpecInput } from "@/lib/core/agent/agent-spec";
import { nearestName, type EventName } from "@/lib/core/hooks/events";
import type { HookAction } from "@/lib/core/hooks/spec";
import { canonicalModel } from "./agent-models";
import { formatDuration, parseDuration } from "./durations";
import { ExportContext, eventOf, partitionHooksForAgent, resolveSingleAgent } from "./export-context";
import type { ObjectReader } from "./field-reader";
import { kebabCase } from "./hook-ids";
import { ImportContext } from "./import-context";
import { parseJsonSource } from "./source-text";
import type { DialectConfig, ExportOptions, ExportResult, ImportOptions, ImportResult } from "./types";

const BUCKET_EVENTS: Record<string, EventName> = {
  onStart: "session.start",
  onToolCall: "tool.pre",
  onToolEnd: "tool.post",
  onModelCall: "model.pre",
  onModelEnd: "model.post",
  onComplete: "session.end",
  onError: "error",
};
const ACTIONS = ["log", "webhook", "save_json", "approve", "command"];
const COMMAND_TIMEOUT_MS = 5_000;
const HITL_TIMEOUT_MS = 30 * 60 * 1000;
/** Loom's default when a profile names no model. */
const LOOM_DEFAULT_MODEL = "openai:gpt-5.5";
/** Loom's own defaults (its profile schema): a profile that leaves them out runs with these. */
const LOOM_DEFAULT_MAX_TURNS = 100;
const LOOM_DEFAULT_TIMEOUT = "30m";

export function importLoom(content: string, options: ImportOptions = {}): ImportResult {
  const ctx = new ImportContext("loom");
  const root = ctx.reader(parseJsonSource(content, "loom"), "");
  if (!root) return ctx.finish();

  const name = root.string("name", { required: !options.agent }) ?? options.agent ?? "agent";
  const scope = `agent:${name}`;
  const { agent, hitlTimeoutMs } = readAgent(root, name, ctx);
  ctx.addAgent(agent, "");

  const buckets = root.object("hooks");
  for (const { key: bucket, path } of buckets?.entries() ?? []) {
    const event = BUCKET_EVENTS[bucket];
    if (!event) {
      // Loom refuses unknown buckets at load; an import that half-succeeds would hide that.
      const hint = nearestName(bucket, Object.keys(BUCKET_EVENTS));
      ctx.fail(path, `unknown hook bucket "${bucket}"${hint ? `; did you mean "${hint}"?` : ""} (known: ${Object.keys(BUCKET_EVENTS).join(", ")})`);
      continue;
    }
    for (const item of buckets?.list(bucket) ?? []) {
      const hook = ctx.reader(item.value, item.path);
      if (!hook) continue;
      const action = readAction(hook, bucket, hitlTimeoutMs, ctx);
      hook.warnUnread();
      if (!action) continue;
      ctx.addHook(
        {
          id: ctx.hookId(scope, `${kebabCase(bucket)}-${item.index + 1}`),
          event,
          scope,
          action: action.action,
          ...(action.timeoutMs !== undefined ? { timeoutMs: action.timeoutMs } : {}),
          onFailure: action.onFailure,
        },
        item.path,
      );
    }
  }
  root.warnUnread((key) => `Loom profile field "${key}" has no Hookplane equivalent; ignored`);
  return ctx.finish();
}

function readAgent(root: ObjectReader, name: string, ctx: ImportContext): { agent: AgentSpecInput; hitlTimeoutMs: number } {
  const agent: AgentSpecInput = { name };
  const description = root.string("description");
  if (description !== undefined) agent.description = description;
  root.ignore("displayName", "Hookplane shows the agent's name; displayName ignored");
  const model = root.string("model");
  const canonical = model === undefined ? LOOM_DEFAULT_MODEL : canonicalModel(model, root.at("model"), ctx);
  if (canonical) agent.model = canonical;
  const instructions = root.string("systemPrompt");
  if (instructions !== undefined) agent.instructions = instructions;
  // Loom's defaults are applied as values, so the agent runs as long as it would in Loom; the
  // export leaves out what equals them, so it writes nothing the profile did not say.
  agent.maxTurns = root.number("maxTurns", { integer: true, positive: true }) ?? LOOM_DEFAULT_MAX_TURNS;

  if (Array.isArray(root.value.tools)) {
    agent.tools = root.stringList("tools");
  } else {
    const tools = root.object("tools");
    const allow = tools?.stringList("allow");
    const preset = tools?.string("preset") ?? "full";
    const presetPath = tools?.at("preset") ?? "tools.preset";
    if (allow !== undefined && allow.length > 0) {
      agent.tools = allow;
      if (preset !== "full") ctx.warn(presetPath, `Hookplane has no "${preset}" tool preset; the allow list is taken as the agent's tools`);
    } else if (preset === "none") agent.tools = [];
    else {
      // An empty allow list keeps every tool of the preset (Loom's applyToolPolicy).
      if (preset !== "full") ctx.warn(presetPath, `Hookplane has no "${preset}" tool preset; the agent gets all tools, as with "full"`);
      agent.tools = ["*"];
    }
    tools?.warnUnread((key) => `Loom tools.${key} has no Hookplane equivalent (agents list their allowed tools); ignored`);
  }

  const execution = root.object("execution");
  const timeout = execution?.string("timeout") ?? LOOM_DEFAULT_TIMEOUT;
  const timeoutMs = parseDuration(timeout);
  if (timeoutMs === undefined) ctx.fail(execution?.at("timeout") ?? "execution.timeout", `"${timeout}" is not a duration like "30m"`);
  else agent.timeoutMs = timeoutMs;
  const maxCostUsd = execution?.number("maxCostUsd");
  if (maxCostUsd !== undefined) agent.budgetUsd = maxCostUsd;
  execution?.warnUnread();

  const security = root.object("security");
  const hitlTimeoutMs = security?.number("hitlTimeoutMs", { integer: true, positive: true, unit: "milliseconds" }) ?? HITL_TIMEOUT_MS;
  security?.warnUnread((key) => `Loom security.${key} is enforced by Loom's zones, not by hooks; ignored`);
  return { agent, hitlTimeoutMs };
}

type ReadAction = { action: HookAction; timeoutMs?: number; onFailure: "block" | "continue" };

function readAction(hook: ObjectReader, bucket: string, hitlTimeoutMs: number, ctx: ImportContext): ReadAction | undefined {
  const type = hook.string("action", { required: true });
  switch (type) {
    case undefined:
      return undefined;
    case "log": {
      const level = hook.string("level");
      if (level !== undefined && level !== "info") {
        ctx.warn(hook.at("level"), `Hookplane log records carry no level; "${level}" ignored`);
      }
      return { action: { type: "log" }, onFailure: "continue" };
    }
    case "webhook": {
      const url = hook.string("url", { required: true });
      // Loom webhooks are observe-only by construction: a down endpoint never blocks the run.
      return url === undefined ? undefined : { action: { type: "webhook", url, method: "POST", headers: {} }, onFailure: "continue" };
    }
    case "save_json": {
      const path = hook.string("path", { required: true });
      if (path === undefined) return undefined;
      if (path.startsWith("/") || path.split(/[\\/]/).includes("..")) {
        ctx.fail(hook.at("path"), `"${path}" must be relative and stay inside the profile folder`);
        return undefined;
      }
      return { action: { type: "save_json", path }, onFailure: "continue" };
    }
    case "approve": {
      const tools = hook.stringList("tools");
      if (bucket !== "onToolCall") {
        ctx.fail(hook.at("action"), `approve is valid only in onToolCall (found in ${bucket})`);
        return undefined;
      }
      return {
        action: { type: "approve", timeoutMs: hitlTimeoutMs, onTimeout: "deny", ...(tools !== undefined ? { tools } : {}) },
        onFailure: "block",
      };
    }
    case "command": {
      const command = hook.string("command", { required: true });
      return command === undefined ? undefined : { action: { type: "command", command }, timeoutMs: COMMAND_TIMEOUT_MS, onFailure: "block" };
    }
    default: {
      const hint = nearestName(type, ACTIONS);
      ctx.fail(hook.at("action"), `unknown action "${type}"${hint ? `; did you mean "${hint}"?` : ""} (known: ${ACTIONS.join(", ")})`);
      return undefined;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Export

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
  const agentName = resolveSingleAgent(config, "loom", options.agent);
  const agent = config.agents.find((a) => a.name === agentName) ?? { name: agentName };
  for (const other of config.agents) {
    if (other.name !== agentName) ctx.warn(`agents.${other.name}`, "an agent.json describes one agent; not exported");
  }
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
  for (const field of ["dailyBudgetUsd", "script", "flow", "metadataFile"] as const) {
    if (agent[field] !== undefined) ctx.warn(`agent.${field}`, `Loom profiles have no ${field}; not exported`);
  }

  const { agentHooks, scheduleHooks } = partitionHooksForAgent(config, agentName, ctx);
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

