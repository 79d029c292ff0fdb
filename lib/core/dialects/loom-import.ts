/**
 * The loom importer: its file into canonical agents, hooks and schedules.
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
import type { AgentSpecInput } from "@/lib/core/agent/agent-spec";
import { nearestName } from "@/lib/core/hooks/events";
import type { HookAction } from "@/lib/core/hooks/spec";
import { canonicalModel } from "./agent-models";
import { parseDuration } from "./durations";
import type { ObjectReader } from "./field-reader";
import { kebabCase } from "./hook-ids";
import { startJsonImport, type ImportContext } from "./import-context";
import type { ImportOptions, ImportResult } from "./types";
import { LOOM_PLAN_TOOLS, LOOM_PRESET_TOOLS, LOOM_SUBAGENT_TOOLS, loomToolGlob, BUCKET_EVENTS, COMMAND_TIMEOUT_MS, HITL_TIMEOUT_MS, LOOM_DEFAULT_MODEL, LOOM_DEFAULT_MAX_TURNS, LOOM_DEFAULT_TIMEOUT } from "./loom-vocabulary";

const ACTIONS = ["log", "webhook", "save_json", "approve", "command"];

export function importLoom(content: string, options: ImportOptions = {}): ImportResult {
  const { ctx, root } = startJsonImport("loom", content, "Loom");
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
    const hasSubagents = Array.isArray(root.value.subagents) && root.value.subagents.length > 0;
    agent.tools = readTools(root.object("tools"), hasSubagents, ctx);
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
      if (url === undefined) return undefined;
      // Loom refuses such a profile at load: an unparseable URL, or plain http to a host not on loopback.
      const refusal = loomWebhookUrlRefusal(url);
      if (refusal) {
        ctx.fail(hook.at("url"), refusal);
        return undefined;
      }
      // Loom webhooks are observe-only by construction: a down endpoint never blocks the run.
      return { action: { type: "webhook", url, method: "POST", headers: {} }, onFailure: "continue" };
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
      if (command === undefined) return undefined;
      ctx.warn(hook.at("command"), `Loom runs commands with its whole process environment; Hookplane does not pass the server's environment to hook commands: they get the event as JSON on stdin, Hookplane's hook variables, the secrets they name and the admin's pass-through list (HOOKPLANE_HOOK_ENV_PASSTHROUGH)`);
      return { action: { type: "command", command }, timeoutMs: COMMAND_TIMEOUT_MS, onFailure: "block" };
    }
    default: {
      const hint = nearestName(type, ACTIONS);
      ctx.fail(hook.at("action"), `unknown action "${type}"${hint ? `; did you mean "${hint}"?` : ""} (known: ${ACTIONS.join(", ")})`);
      return undefined;
    }
  }
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** Loom's load-time rule for webhook URLs: https, or http to loopback only. */
export function loomWebhookUrlRefusal(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `not a valid URL: ${url} (Loom refuses the profile)`;
  }
  if (parsed.protocol === "https:" || (parsed.protocol === "http:" && LOOPBACK_HOSTS.has(parsed.hostname))) return undefined;
  return `webhook URLs must be https (http only for localhost); got ${url} (Loom refuses the profile)`;
}

/**
 * `tools: {preset, allow, deny}` as Loom's assembler applies it: the preset's built-in tools (plus
 * agent_spawn and orchestrate when the profile has subagents, the plan tools when `allow` names
 * one), kept where `allow` (globs) matches when it is not empty, less what `deny` matches (deny
 * wins). `full` is every tool (`["*"]`): an allow list is then the agent's tools, and a deny list
 * Hookplane cannot subtract from "all" is warned about (the agent keeps those tools).
 */
function readTools(tools: ObjectReader | undefined, hasSubagents: boolean, ctx: ImportContext): string[] {
  const allow = tools?.stringList("allow") ?? [];
  const deny = tools?.stringList("deny") ?? [];
  const preset = tools?.string("preset") ?? "full";
  const presetPath = tools?.at("preset") ?? "tools.preset";
  const denied = (name: string) => deny.some((pattern) => loomToolGlob(pattern)(name));
  tools?.warnUnread((key) => `Loom tools.${key} has no Hookplane equivalent (agents list their allowed tools); ignored`);
  let result: string[];
  if (preset === "none") result = [];
  else if (preset === "full") {
    if (allow.length === 0) {
      if (deny.length > 0) {
        ctx.changed(tools!.at("deny"), `Loom removes ${deny.map((d) => `"${d}"`).join(", ")} from every tool; a Hookplane agent lists the tools it has, not the ones it lacks, so it keeps all tools (list them in allow to narrow it)`);
      }
      return ["*"];
    }
    result = allow;
  } else if (LOOM_PRESET_TOOLS[preset]) {
    const base = [...LOOM_PRESET_TOOLS[preset], ...(hasSubagents ? LOOM_SUBAGENT_TOOLS : [])];
    if (allow.some((a) => (LOOM_PLAN_TOOLS as readonly string[]).includes(a))) base.push(...LOOM_PLAN_TOOLS.filter((t) => !base.includes(t)));
    result = allow.length === 0 ? base : base.filter((name) => allow.some((pattern) => loomToolGlob(pattern)(name)));
  } else {
    ctx.fail(presetPath, `expected full, coding, readonly or none (Loom's presets), got "${preset}"`);
    return [];
  }
  return result.filter((name) => !denied(name));
}
