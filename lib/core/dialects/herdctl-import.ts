/**
 * The herdctl importer: its file into canonical agents, hooks and schedules.
 *
 * herdctl: one agent per YAML file, with `hooks.after_run` / `hooks.on_error` lists of shell,
 * webhook, discord and slack hooks, and `schedules` (interval or cron).
 *
 * Semantics carried over: `continue_on_error` (default true) becomes onFailure continue/block,
 * `on_events` becomes onOutcomes, `when` is kept; shell timeouts default to 30 s and webhook
 * timeouts to 10 s; `${ENV}` in webhook headers and channels becomes `${secret:ENV}`.
 */
import type { AgentSpecInput } from "@/lib/core/agent/agent-spec";
import { nearestName, type EventName, type Outcome } from "@/lib/core/hooks/events";
import type { HookAction, HookSpecInput } from "@/lib/core/hooks/spec";
import { canonicalModel } from "./agent-models";
import { parseDuration } from "./durations";
import type { ListItem, ObjectReader } from "./field-reader";
import { kebabCase } from "./hook-ids";
import { ImportContext } from "./import-context";
import { envToSecretReferences } from "./secret-references";
import { parseYamlSource } from "./source-text";
import type { ImportOptions, ImportResult } from "./types";
import { HERDCTL_OUTCOMES, DEFAULT_TIMEOUT_MS, HERDCTL_UNLIMITED_TURNS } from "./herdctl-vocabulary";

const BUCKET_EVENTS: Record<string, EventName> = { after_run: "session.end", on_error: "error" };

const HOOK_TYPES = ["shell", "webhook", "discord", "slack"];

export function importHerdctl(content: string, options: ImportOptions = {}): ImportResult {
  const ctx = new ImportContext("herdctl");
  const root = ctx.reader(parseYamlSource(content, "herdctl"), "");
  if (!root) return ctx.finish();

  const name = root.string("name", { required: !options.agent }) ?? options.agent ?? "agent";
  const scope = `agent:${name}`;
  const agent = readAgent(root, name, ctx);
  ctx.addAgent(agent, "");

  const defaultPrompt = root.string("default_prompt");
  let defaultPromptUsed = false;
  for (const { key, value, path } of root.object("schedules")?.entries() ?? []) {
    const schedule = ctx.reader(value, path);
    if (!schedule) continue;
    const type = schedule.string("type", { required: true });
    const prompt = schedule.string("prompt") ?? defaultPrompt;
    const enabled = schedule.boolean("enabled");
    schedule.ignore("resume_session", "Hookplane starts every scheduled run fresh; resume_session ignored");
    let timing: { intervalMs: number } | { cron: string } | undefined;
    if (type === "interval") {
      const interval = schedule.string("interval", { required: true });
      const intervalMs = interval === undefined ? undefined : parseDuration(interval);
      if (interval !== undefined && intervalMs === undefined) ctx.fail(schedule.at("interval"), `"${interval}" is not a duration like "30m" or "4h"`);
      if (intervalMs !== undefined) timing = { intervalMs };
    } else if (type === "cron") {
      const expression = schedule.string("expression") ?? schedule.string("cron");
      if (expression === undefined) ctx.fail(schedule.at("expression"), "is required for a cron schedule");
      else timing = { cron: expression };
    } else if (type !== undefined) {
      ctx.warn(schedule.at("type"), `"${type}" schedules are triggered from outside; Hookplane schedules are interval or cron; not imported`);
    }
    schedule.warnUnread();
    if (!timing) continue;
    if (!prompt) {
      ctx.warn(path, "a Hookplane schedule needs a prompt and neither the schedule nor default_prompt gives one; not imported");
      continue;
    }
    if (!schedule.has("prompt")) defaultPromptUsed = true;
    ctx.addSchedule({ name: key, agent: name, ...timing, prompt, ...(enabled !== undefined ? { enabled } : {}) }, path);
  }
  if (defaultPrompt !== undefined && !defaultPromptUsed) {
    ctx.warn(root.at("default_prompt"), "Hookplane agents have no default prompt (a run always gives one); ignored");
  }

  const buckets = root.object("hooks");
  for (const { key: bucket, path } of buckets?.entries() ?? []) {
    const event = BUCKET_EVENTS[bucket];
    if (!event) {
      ctx.unknownEvent(path, bucket, Object.keys(BUCKET_EVENTS));
      continue;
    }
    for (const item of buckets?.list(bucket) ?? []) {
      const spec = readHook(item, bucket, event, scope, ctx);
      if (spec) ctx.addHook(spec, item.path);
    }
  }

  root.warnUnread((key) => `herdctl setting "${key}" has no Hookplane equivalent; ignored`);
  return ctx.finish();
}

function readAgent(root: ObjectReader, name: string, ctx: ImportContext): AgentSpecInput {
  const agent: AgentSpecInput = { name };
  const description = root.string("description");
  const instructions = root.string("system_prompt");
  const tools = root.stringList("allowed_tools");
  const metadataFile = root.string("metadata_file");
  const session = root.object("session");
  const maxTurns = root.number("max_turns", { integer: true, positive: true }) ?? session?.number("max_turns", { integer: true, positive: true });
  const modelPath = root.has("model") ? root.at("model") : (session?.at("model") ?? "model");
  const rawModel = root.string("model") ?? session?.string("model");
  // session.timeout is how long a session may be resumed, not a limit on a run (herdctl has none).
  session?.ignore("timeout", "herdctl's session.timeout is how long a session may be resumed; Hookplane starts each run fresh and herdctl has no run timeout; ignored");
  session?.warnUnread();
  root.ignore("denied_tools", "Hookplane agents list the tools they may use (allowed_tools) only; denied_tools ignored");

  if (description !== undefined) agent.description = description;
  if (rawModel !== undefined) {
    const model = canonicalModel(rawModel, modelPath, ctx);
    if (model) agent.model = model;
  } else {
    ctx.warn("model", 'no model given (herdctl uses Claude\'s default); the agent uses Hookplane\'s default "scripted" model');
  }
  if (instructions !== undefined) agent.instructions = instructions;
  // No allowed_tools: the agent has Claude Code's tools, all of them.
  agent.tools = tools ?? ["*"];
  if (maxTurns !== undefined && maxTurns > HERDCTL_UNLIMITED_TURNS) {
    ctx.fail(root.has("max_turns") ? "max_turns" : "session.max_turns", `a Hookplane agent makes at most ${HERDCTL_UNLIMITED_TURNS} model calls per run; got ${maxTurns}`);
  } else if (maxTurns !== undefined) agent.maxTurns = maxTurns;
  else {
    agent.maxTurns = HERDCTL_UNLIMITED_TURNS;
    ctx.warn(
      "max_turns",
      `no max_turns: herdctl sets no turn limit; a Hookplane agent always has one (20 unless it says otherwise), so it gets the highest, ${HERDCTL_UNLIMITED_TURNS} model calls per run. Set max_turns to choose`,
    );
  }
  if (metadataFile !== undefined) agent.metadataFile = metadataFile;
  return agent;
}

/** `${ENV}` → `${secret:ENV}`, with a warning per variable so the operator creates the secrets. */
function secretsFrom(text: string, path: string, ctx: ImportContext): string {
  const { text: converted, names } = envToSecretReferences(text);
  for (const env of names) {
    ctx.warn(path, `herdctl reads the environment variable ${env}; Hookplane substitutes the secret "${env}" instead (create it, with the hosts it may be sent to)`);
  }
  return converted;
}

/**
 * A secret may stand only where it carries a credential (a header, a URL's userinfo): `${ENV}`
 * anywhere else (a URL's host or path, a channel) is kept as written, with a warning to replace it.
 */
function keptAsWritten(text: string, path: string, ctx: ImportContext): string {
  for (const env of envToSecretReferences(text).names) {
    ctx.warn(path, `herdctl reads the environment variable ${env} here; Hookplane uses secrets only in headers and URL userinfo, so "\${${env}}" is kept as written: replace it with the value`);
  }
  return text;
}

/** `https://user:${TOKEN}@host/${PATH}`: the userinfo's variables become secrets, the rest stays. */
function urlFrom(url: string, path: string, ctx: ImportContext): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*@)(.*)$/is.exec(url);
  if (!m) return keptAsWritten(url, path, ctx);
  return m[1] + secretsFrom(m[2], path, ctx) + keptAsWritten(m[3], path, ctx);
}

/** herdctl hook timeouts are milliseconds; a limit error says so in milliseconds too. */
function readTimeout(hook: ObjectReader, ctx: ImportContext): number | undefined {
  const value = hook.number("timeout", { integer: true, positive: true, unit: "milliseconds" });
  return value === undefined ? undefined : ctx.timeoutMs(value, "ms", hook.at("timeout"));
}

function readHook(item: ListItem, bucket: string, event: EventName, scope: string, ctx: ImportContext): HookSpecInput | undefined {
  const hook = ctx.reader(item.value, item.path);
  if (!hook) return undefined;
  const type = hook.string("type", { required: true });
  const name = hook.string("name");
  const continueOnError = hook.boolean("continue_on_error") ?? true;
  const onEvents = hook.stringList("on_events");
  const when = hook.string("when");

  let action: HookAction | undefined;
  let timeoutMs: number | undefined;
  if (type === "shell") {
    const command = hook.string("command", { required: true });
    timeoutMs = readTimeout(hook, ctx) ?? DEFAULT_TIMEOUT_MS.shell;
    if (command !== undefined) {
      action = { type: "command", command };
      ctx.warn(hook.at("command"), `herdctl runs shell hooks with its whole process environment; Hookplane does not pass the server's environment to hook commands: they get the HookContext as JSON on stdin, Hookplane's hook variables, the secrets they name and the admin's pass-through list (HOOKPLANE_HOOK_ENV_PASSTHROUGH)`);
    }
  } else if (type === "webhook") {
    const url = hook.string("url", { required: true });
    const method = hook.string("method") ?? "POST";
    if (method !== "POST" && method !== "PUT") ctx.fail(hook.at("method"), `expected POST or PUT, got "${method}"`);
    const headers: Record<string, string> = {};
    for (const [header, value] of Object.entries(hook.stringMap("headers") ?? {})) {
      headers[header] = secretsFrom(value, `${hook.at("headers")}.${header}`, ctx);
    }
    timeoutMs = readTimeout(hook, ctx) ?? DEFAULT_TIMEOUT_MS.webhook;
    if (url !== undefined && (method === "POST" || method === "PUT")) {
      action = { type: "webhook", url: urlFrom(url, hook.at("url"), ctx), method, headers };
    }
  } else if (type === "discord" || type === "slack") {
    const channel = hook.string("channel_id", { required: true });
    const tokenSecret = hook.string("bot_token_env", { required: type === "discord" }) ?? "SLACK_BOT_TOKEN";
    if (channel !== undefined) {
      ctx.warn(hook.at("bot_token_env"), `herdctl reads the bot token from the environment variable ${tokenSecret}; Hookplane reads the secret "${tokenSecret}" (create it)`);
      action = { type, channel: keptAsWritten(channel, hook.at("channel_id"), ctx), tokenSecret };
    }
  } else if (type !== undefined) {
    const hint = nearestName(type, HOOK_TYPES);
    ctx.fail(hook.at("type"), `unknown hook type "${type}"${hint ? `; did you mean "${hint}"?` : ""} (known: ${HOOK_TYPES.join(", ")})`);
  }
  hook.warnUnread();

  const outcomes: Outcome[] = [];
  for (const [index, outcome] of (onEvents ?? []).entries()) {
    if ((HERDCTL_OUTCOMES as string[]).includes(outcome)) outcomes.push(outcome as Outcome);
    else ctx.fail(`${hook.at("on_events")}[${index}]`, `unknown event "${outcome}" (known: ${HERDCTL_OUTCOMES.join(", ")})`);
  }
  if (onEvents && event !== "session.end") {
    ctx.changed(hook.at("on_events"), "on_events filters outcomes of a finished run; on an on_error hook it has no Hookplane equivalent and was ignored");
  }
  if (!action) return undefined;
  return {
    id: ctx.hookId(scope, name ?? `${kebabCase(bucket)}-${item.index + 1}`),
    ...(name !== undefined ? { name } : {}),
    event,
    scope,
    ...(when !== undefined ? { when } : {}),
    ...(onEvents && event === "session.end" ? { onOutcomes: outcomes } : {}),
    action,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    onFailure: continueOnError ? "continue" : "block",
  };
}
