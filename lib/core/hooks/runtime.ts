/**
 * The hook runtime: runs the hooks bound to an event, in scope order, one after the other, and
 * says what the loop must do (allow, block, skip), what the model should read, and what happened
 * (one ledger row per hook). It never throws: errors, timeouts and aborts become verdicts through
 * each hook's onFailure.
 *
 * Speed matters because tool.pre runs before every tool call: in-process actions (block, context,
 * log) run synchronously with no timer, promise or listener, and a dispatch with no async work
 * returns an already-resolved promise. Only async actions get a timer and an abort link, both
 * removed when the hook settles.
 */
import { compileHooks, type CompiledHookSet } from "./compiled-hooks";
import { Dispatch, NO_TEXTS } from "./dispatch";
import { abandonAt, interruptedAt, killAll, resumeFrom } from "./dispatch-resume";
import type { HookEvent } from "./event";
import { isBlockingEvent } from "./events";
import type { ExecutorOptions } from "./executors/types";
import type { LedgerEntry } from "./ledger";
import { PUBLIC_ONLY, type OutboundPolicy } from "@/lib/core/outbound/outbound-guard";
import { sendOutbound, type OutboundTransport } from "@/lib/core/outbound/outbound-request";
import type { SafeFetchPolicy } from "./http-client";
import { silentLogger } from "./ports";
import type { DispatchOptions, DispatchResult, HookRuntimeOptions, RuntimeHook } from "./runtime-types";

export interface HookRuntime {
  dispatch(
    hooks: readonly RuntimeHook[] | CompiledHookSet,
    event: HookEvent,
    opts?: DispatchOptions,
  ): Promise<DispatchResult>;
}

const DEFAULT_MAX_OUTPUT = 1024 * 1024;
const BASE_ENV_KEYS = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM"];

/** Nothing bound to the event: the same frozen answer every time, no allocation. */
const NOTHING_BOUND: DispatchResult = Object.freeze({
  verdict: "allow",
  context: NO_TEXTS,
  reminders: NO_TEXTS,
  ledger: Object.freeze([]) as unknown as LedgerEntry[],
}) as DispatchResult;
const NOTHING_BOUND_PROMISE = Promise.resolve(NOTHING_BOUND);

/**
 * Where Slack and Discord calls may go: the admin's allow-list, plus the hosts of the base URLs the
 * operator configured (trusted like the allow-list; the defaults are public). Also what updates a
 * posted approval message uses.
 */
export function noticeFetchPolicy(options: {
  outbound: OutboundPolicy;
  transport: OutboundTransport;
  slackBaseUrl?: string;
  discordBaseUrl?: string;
  maxResponseBytes: number;
}): SafeFetchPolicy {
  const operatorHosts = [options.slackBaseUrl, options.discordBaseUrl].flatMap((u) => (u ? [hostOf(u)] : []));
  const outbound = options.outbound;
  return {
    transport: options.transport,
    outbound: operatorHosts.length ? { ...outbound, allowPrivateHosts: [...outbound.allowPrivateHosts, ...operatorHosts] } : outbound,
    maxResponseBytes: options.maxResponseBytes,
  };
}

export function createHookRuntime(options: HookRuntimeOptions = {}): HookRuntime {
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const outbound = options.outbound ?? PUBLIC_ONLY;
  const transport = options.transport ?? sendOutbound;
  const slackBaseUrl = (options.slackBaseUrl ?? "https://slack.com/api").replace(/\/+$/, "");
  const discordBaseUrl = (options.discordBaseUrl ?? "https://discord.com/api/v10").replace(/\/+$/, "");
  const executorOptions: ExecutorOptions = {
    approvals: options.approvals,
    limits: options.limits,
    history: options.history,
    tools: options.tools,
    secrets: options.secrets,
    codeHooks: options.codeHooks,
    logger: options.logger ?? silentLogger,
    now: options.now ?? Date.now,
    http: { transport, outbound, onlyHosts: options.allowHosts, maxResponseBytes: maxOutputBytes },
    noticeHttp: noticeFetchPolicy({ slackBaseUrl: options.slackBaseUrl, discordBaseUrl: options.discordBaseUrl, outbound, transport, maxResponseBytes: maxOutputBytes }),
    slackBaseUrl,
    discordBaseUrl,
    notices: options.notices,
    commandBaseEnv: options.commandBaseEnv ?? pickBaseEnv(options.environment ?? {}, options.passEnv),
    shellLauncher: options.shellLauncher,
    maxOutputBytes,
  };

  function dispatch(
    hooks: readonly RuntimeHook[] | CompiledHookSet,
    event: HookEvent,
    opts?: DispatchOptions,
  ): Promise<DispatchResult> {
    try {
      const set = Array.isArray(hooks) ? compileHooks(hooks as readonly RuntimeHook[]) : (hooks as CompiledHookSet);
      const bound = set.byEvent.get(event.type);
      if (!bound || bound.length === 0) return NOTHING_BOUND_PROMISE;
      const state = new Dispatch(bound, event, opts, executorOptions, opts?.beforeSideEffect);
      const from = opts?.resume ? resumeFrom(state, opts.resume) : opts?.interrupted ? interruptedAt(state, opts.interrupted) : 0;
      if (options.killSwitch?.()) return Promise.resolve(killAll(state, options.ledger, from));
      if (opts?.resume && opts.abandon !== undefined) {
        // The waiting hook is gone (edited away while the run waited): nothing is left to abandon.
        if (bound[from]?.id !== opts.resume.hookId) return NOTHING_BOUND_PROMISE;
        return Promise.resolve(abandonAt(state, from, opts.resume, opts.abandon, options.ledger));
      }
      const result = state.runFrom(from, options, executorOptions);
      return result instanceof Promise ? result : Promise.resolve(result);
    } catch (error) {
      // Only a bug can get here; the loop must still get an answer, and it fails closed.
      executorOptions.logger.error("hook dispatch failed", { error: String(error) });
      const gate = isBlockingEvent(event.type);
      return Promise.resolve({
        verdict: gate ? "block" : "allow",
        reason: gate ? `hook runtime error: ${String(error)}` : undefined,
        context: [],
        reminders: [],
        ledger: [],
      });
    }
  }

  return { dispatch };
}

/** Hosts of the few operator URLs a runtime is made with (one runtime a bridged call): parsed once each. */
const hosts = new Map<string, string>();

function hostOf(url: string): string {
  let host = hosts.get(url);
  if (host === undefined) {
    try {
      host = new URL(url).hostname;
    } catch {
      host = "";
    }
    if (hosts.size < 64) hosts.set(url, host);
  }
  return host;
}

function pickBaseEnv(environment: Readonly<Record<string, string | undefined>>, passEnv: readonly string[] = []): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of [...BASE_ENV_KEYS, ...passEnv]) {
    const value = environment[key];
    if (value !== undefined) env[key] = value;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return env;
}
