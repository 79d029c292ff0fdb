/**
 * The hookplane exporter: canonical config back into its file.
 *
 * Hookplane's own config file (YAML or JSON): the canonical shapes as they are, under a
 * `hookplane: 1` marker. It is the one format that expresses everything, so exporting then
 * importing it loses nothing, and it is what the config export endpoint writes by default.
 *
 * ```yaml
 * hookplane: 1
 * agents: [{name, model, instructions, tools, …}]
 * hooks: [{id, event, scope, matcher, action: {type, …}, timeoutMs, onFailure, …}]
 * schedules: [{name, agent, cron | intervalMs, prompt, hooks: [...]}]
 * ```
 */
import { type HookSpecInput } from "@/lib/core/hooks/spec";
import { stringify } from "yaml";
import { allHooks, scopeOf } from "./export-context";
import type { DialectConfig, ExportOptions, ExportResult } from "./types";
import { HOOKPLANE_FORMAT_VERSION } from "./hookplane-vocabulary";

export function exportHookplane(config: DialectConfig, options: ExportOptions = {}): ExportResult {
  const agent = options.agent;
  const inScope = (hook: HookSpecInput) => !agent || scopeOf(hook) === "global" || scopeOf(hook) === `agent:${agent}`;
  const schedules = config.schedules.filter((s) => !agent || s.agent === agent);
  const scheduleNames = new Set(config.schedules.map((s) => s.name));
  // Schedule hooks given at the top level are written inside their schedule, where import reads them.
  const loose = allHooks({ ...config, schedules: [] }).filter((h) => scopeOf(h).startsWith("schedule:") && scheduleNames.has(scopeOf(h).slice(9)));
  const doc = {
    hookplane: HOOKPLANE_FORMAT_VERSION,
    agents: config.agents.filter((a) => !agent || a.name === agent),
    hooks: config.hooks.filter((h) => inScope(h) && !loose.includes(h)),
    schedules: schedules.map((s) => {
      const hooks = [...(s.hooks ?? []), ...loose.filter((h) => scopeOf(h) === `schedule:${s.name}`)];
      return { ...s, ...(hooks.length > 0 ? { hooks } : {}) };
    }),
  };
  const content = options.format === "json" ? `${JSON.stringify(doc, null, 2)}\n` : stringify(doc, { lineWidth: 0 });
  return { content, warnings: [] };
}
