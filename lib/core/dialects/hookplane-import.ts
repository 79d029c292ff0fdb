/**
 * The hookplane importer: its file into canonical agents, hooks and schedules.
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
import { agentSpecSchema, scheduleSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookActionSchema, hookSpecSchema, type HookSpecInput } from "@/lib/core/hooks/spec";
import { isPlainObject, type ObjectReader } from "./field-reader";
import { ImportContext } from "./import-context";
import { parseYamlSource } from "./source-text";
import type { ImportOptions, ImportResult, ImportedSchedule } from "./types";
import { HOOKPLANE_FORMAT_VERSION } from "./hookplane-vocabulary";

const AGENT_FIELDS = Object.keys(agentSpecSchema.shape);

const HOOK_FIELDS = Object.keys(hookSpecSchema.shape);

const SCHEDULE_FIELDS = [...Object.keys(scheduleSpecSchema.shape), "hooks"];

const ACTION_FIELDS = new Map(hookActionSchema.options.map((option) => [option.shape.type.value as string, Object.keys(option.shape)]));

/** Warn about keys the canonical schema does not know: zod would drop them without a word. */
function warnUnknownKeys(reader: ObjectReader, known: readonly string[], what: string): void {
  for (const key of reader.keys()) if (!known.includes(key)) reader.ignore(key, `"${key}" is not a field of ${what}; ignored`);
}

export function importHookplane(content: string, _options: ImportOptions = {}): ImportResult {
  // JSON is YAML, so one parser reads both forms of the file.
  const ctx = new ImportContext("hookplane", true);
  const root = ctx.reader(parseYamlSource(content, "hookplane"), "");
  if (!root) return ctx.finish();

  const version = root.number("hookplane") ?? root.number("version");
  if (version === undefined) ctx.warn("", `no "hookplane: ${HOOKPLANE_FORMAT_VERSION}" marker; read as version ${HOOKPLANE_FORMAT_VERSION}`);
  else if (version !== HOOKPLANE_FORMAT_VERSION) ctx.fail(root.has("hookplane") ? "hookplane" : "version", `unsupported version ${version} (this Hookplane reads ${HOOKPLANE_FORMAT_VERSION})`);

  for (const item of root.list("agents") ?? []) {
    const agent = ctx.reader(item.value, item.path);
    if (!agent) continue;
    warnUnknownKeys(agent, AGENT_FIELDS, "an agent");
    ctx.addAgent(withoutKeys(agent.value, AGENT_FIELDS) as never, item.path);
  }
  for (const item of root.list("hooks") ?? []) readHook(item.value, item.path, undefined, ctx);
  for (const item of root.list("schedules") ?? []) {
    const schedule = ctx.reader(item.value, item.path);
    if (!schedule) continue;
    warnUnknownKeys(schedule, SCHEDULE_FIELDS, "a schedule");
    const name = schedule.string("name", { required: true });
    const hooks = schedule.list("hooks");
    if (name === undefined) continue;
    const spec = withoutKeys(schedule.value, SCHEDULE_FIELDS) as ImportedSchedule;
    delete spec.hooks;
    ctx.addSchedule(spec, item.path);
    for (const hook of hooks ?? []) readHook(hook.value, hook.path, `schedule:${name}`, ctx);
  }
  root.warnUnread((key) => `"${key}" is not a section of a Hookplane config (agents, hooks, schedules); ignored`);
  return ctx.finish();
}

function withoutKeys(value: Record<string, unknown>, known: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([key]) => known.includes(key)));
}

function readHook(value: unknown, path: string, scheduleScope: string | undefined, ctx: ImportContext): void {
  const hook = ctx.reader(value, path);
  if (!hook) return;
  warnUnknownKeys(hook, HOOK_FIELDS, "a hook");
  const spec = withoutKeys(hook.value, HOOK_FIELDS) as HookSpecInput;
  if (scheduleScope) {
    if (spec.scope === undefined) spec.scope = scheduleScope;
    else if (spec.scope !== scheduleScope) ctx.fail(hook.at("scope"), `a hook of this schedule has scope "${scheduleScope}", not "${spec.scope}"`);
  }
  const action = hook.value.action;
  if (isPlainObject(action) && typeof action.type === "string" && ACTION_FIELDS.has(action.type)) {
    const actionReader = ctx.reader(action, hook.at("action"));
    if (actionReader) warnUnknownKeys(actionReader, ACTION_FIELDS.get(action.type) ?? [], `a ${action.type} action`);
    spec.action = withoutKeys(action, ACTION_FIELDS.get(action.type) ?? []) as HookSpecInput["action"];
  }
  if (typeof spec.id === "string" && !ctx.claimHookId(spec.scope ?? "global", spec.id)) {
    ctx.fail(hook.at("id"), `hook id "${spec.id}" is used twice in scope ${spec.scope ?? "global"}`);
  }
  ctx.addHook(spec, path);
}
