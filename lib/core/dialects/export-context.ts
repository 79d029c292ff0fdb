/**
 * Shared bookkeeping of exporters: the warnings for what a dialect cannot express, and picking the
 * hooks that belong in a one-agent file.
 */
import type { AgentSpecInput } from "@/lib/core/agent/agent-spec";
import type { EventName } from "@/lib/core/hooks/events";
import type { HookSpecInput } from "@/lib/core/hooks/spec";
import { DialectExportError } from "./dialect-error";
import { joinPath } from "./field-reader";
import type { DialectConfig, DialectName, DialectWarning, ExportOptions } from "./types";

export class ExportContext {
  readonly warnings: DialectWarning[] = [];

  constructor(readonly dialect: DialectName) {}

  warn(path: string, message: string): void {
    this.warnings.push({ path, message });
  }

  /** Warn about a hook (or one of its fields) this dialect cannot express. */
  warnHook(hook: HookSpecInput, field: string | undefined, message: string): void {
    const base = joinPath("hooks", hook.id);
    this.warn(field ? joinPath(base, field) : base, message);
  }

  /**
   * The fields every dialect but Hookplane lacks: a disabled or shadow hook would become a live,
   * enforcing one, so such hooks are left out rather than exported wrongly.
   */
  skipsInactive(hook: HookSpecInput): boolean {
    if (hook.enabled === false) {
      this.warnHook(hook, "enabled", `${this.dialect} has no way to disable a hook; the disabled hook was not exported`);
      return true;
    }
    if (hook.mode === "shadow") {
      this.warnHook(hook, "mode", `${this.dialect} has no shadow mode; the shadow hook was not exported (it would enforce)`);
      return true;
    }
    return false;
  }
}

/** HookSpecInput types `event` as unknown (its schema validates by refinement); exports only see validated hooks. */
export function eventOf(hook: HookSpecInput): EventName {
  return hook.event as EventName;
}

export function scopeOf(hook: HookSpecInput): string {
  return hook.scope ?? "global";
}

/**
 * For the coding agents' hook files (one per project, no scopes): whether `hook` belongs in the
 * export for `options.agent`, or with none for global and agent hooks; warns when it does not.
 */
export function inAgentExport(ctx: ExportContext, hook: HookSpecInput, options: ExportOptions): boolean {
  const scope = scopeOf(hook);
  const wanted = scope === "global" || (options.agent ? scope === `agent:${options.agent}` : scope.startsWith("agent:"));
  if (!wanted) ctx.warnHook(hook, "scope", `belongs to ${scope}; this export is for ${options.agent ? `agent "${options.agent}"` : "global hooks and agents"} only`);
  return wanted;
}

/** Every hook of the config, schedule hooks included, each with its effective scope. */
export function allHooks(config: DialectConfig): HookSpecInput[] {
  return [
    ...config.hooks,
    ...config.schedules.flatMap((s) => (s.hooks ?? []).map((h) => ({ ...h, scope: h.scope ?? `schedule:${s.name}` }))),
  ];
}

/** The one agent a single-agent file describes: the option, else the only agent of the config. */
export function resolveSingleAgent(config: DialectConfig, dialect: DialectName, requested?: string): string {
  if (requested) return requested;
  if (config.agents.length === 1) return config.agents[0].name;
  const scoped = [...new Set(config.hooks.map(scopeOf).filter((s) => s.startsWith("agent:")))];
  if (config.agents.length === 0 && scoped.length === 1) return scoped[0].slice("agent:".length);
  throw new DialectExportError(
    dialect,
    `a ${dialect} file describes one agent; name it with the agent option (agents: ${config.agents.map((a) => a.name).join(", ") || "none"})`,
  );
}

/**
 * The agent a one-agent file (`file`: "a herdctl file") exports, as resolveSingleAgent names it
 * (just its name when the config has no such agent); every other agent is reported as not exported.
 */
export function exportedAgent(config: DialectConfig, ctx: ExportContext, requested: string | undefined, file: string): AgentSpecInput {
  const agentName = resolveSingleAgent(config, ctx.dialect, requested);
  for (const other of config.agents) {
    if (other.name !== agentName) ctx.warn(`agents.${other.name}`, `${file} describes one agent; not exported`);
  }
  return config.agents.find((a) => a.name === agentName) ?? { name: agentName };
}

/**
 * The hooks of one agent for a one-agent file: its own, plus global ones (merged into the agent
 * with a warning, since the file has no global level), and separately the hooks of schedules,
 * keyed by schedule name, for the exporter to place or report. Hooks of other agents are
 * reported as not exported.
 */
export function partitionHooksForAgent(
  config: DialectConfig,
  agent: string,
  ctx: ExportContext,
): { agentHooks: HookSpecInput[]; scheduleHooks: Map<string, HookSpecInput[]> } {
  const agentHooks: HookSpecInput[] = [];
  const scheduleHooks = new Map<string, HookSpecInput[]>();
  for (const hook of allHooks(config)) {
    const scope = scopeOf(hook);
    if (scope === `agent:${agent}`) agentHooks.push(hook);
    else if (scope === "global") {
      ctx.warnHook(hook, "scope", `${ctx.dialect} has no global hooks; exported as a hook of agent "${agent}"`);
      agentHooks.push(hook);
    } else if (scope.startsWith("schedule:")) {
      const name = scope.slice("schedule:".length);
      scheduleHooks.set(name, [...(scheduleHooks.get(name) ?? []), hook]);
    } else {
      ctx.warnHook(hook, "scope", `belongs to ${scope}, not to agent "${agent}"; not exported`);
    }
  }
  return { agentHooks, scheduleHooks };
}
