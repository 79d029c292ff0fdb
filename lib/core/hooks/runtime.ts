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
import { awaitApproval } from "./executors/approve";
import { contextForDialect } from "./dialect-contracts";
import { matcherSubject, templateVarsOf, type HookContext, type HookEvent } from "./event";
import { isBlockingEvent } from "./events";
import { compileHooks, type CompiledHook, type CompiledHookSet } from "./compiled-hooks";
import {
  isFailure,
  isSuspend,
  type ActionFailure,
  type ActionOutcome,
  type ActionResult,
  type ActionSuspend,
  type ActionRun,
  type AsyncExecutor,
  type ExecutorOptions,
} from "./executors/types";
import { jsonMayContain } from "./json-prefilter";
import { LEDGER_TEXT_CAP, type LedgerEntry } from "./ledger";
import { PUBLIC_ONLY, type OutboundPolicy } from "@/lib/core/outbound/outbound-guard";
import { sendOutbound, type OutboundTransport } from "@/lib/core/outbound/outbound-request";
import type { SafeFetchPolicy } from "./http-client";
import { silentLogger, type SecretValue } from "./ports";
import { capText, createRedactor, noRedaction, type Redactor } from "./redact";
import { INTERRUPTED_HOOK, type DispatchOptions, type DispatchResult, type HookProgress, type HookRuntimeOptions, type RuntimeHook, type SuspendPoint } from "./runtime-types";
import { CODE_EXECUTION_OFF } from "./trust";

export interface HookRuntime {
  dispatch(
    hooks: readonly RuntimeHook[] | CompiledHookSet,
    event: HookEvent,
    opts?: DispatchOptions,
  ): Promise<DispatchResult>;
}

const REASON_CAP = 4000;
const DEFAULT_MAX_OUTPUT = 1024 * 1024;
const BASE_ENV_KEYS = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM"];

/** Results share one frozen empty list where there is nothing to say (callers never mutate them). */
const NO_TEXTS = Object.freeze([]) as unknown as string[];

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
    tools: options.tools,
    secrets: options.secrets,
    codeHooks: options.codeHooks,
    logger: options.logger ?? silentLogger,
    now: options.now ?? Date.now,
    http: { transport, outbound, onlyHosts: options.allowHosts, maxResponseBytes: maxOutputBytes },
    noticeHttp: noticeFetchPolicy({ ...options, outbound, transport, maxResponseBytes: maxOutputBytes }),
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
      const state = new Dispatch(bound, event, opts?.signal, executorOptions, opts?.beforeSideEffect);
      const from = opts?.resume ? state.resumeFrom(opts.resume) : opts?.interrupted ? state.interruptedAt(opts.interrupted) : 0;
      if (options.killSwitch?.()) return Promise.resolve(state.killAll(options.ledger, from));
      if (opts?.resume && opts.abandon !== undefined) {
        // The waiting hook is gone (edited away while the run waited): nothing is left to abandon.
        if (bound[from]?.id !== opts.resume.hookId) return NOTHING_BOUND_PROMISE;
        return Promise.resolve(state.abandonAt(from, opts.resume, opts.abandon, options.ledger));
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

/**
 * The state of one dispatch. It doubles as the ActionRun of synchronous executors (they read
 * `hook`, `shadow`, `event` and the lazy context while it points at them), so an in-process hook
 * costs one ledger row and nothing else.
 */
class Dispatch implements ActionRun {
  /** One row per bound hook, in chain order: sized up front (no regrowth on the hot path). */
  readonly ledger: LedgerEntry[];
  verdict: DispatchResult["verdict"] = "allow";
  reason: string | undefined;
  blockedBy: string | undefined;
  approval: DispatchResult["approval"];
  contextTexts: string[] | undefined;
  outputs: string[] | undefined;
  reminders: string[] | undefined;
  /** Once set, the remaining hooks are recorded as not run, with this reason. */
  stopped: string | undefined;
  /** An `allow` hook let the call through: the approve hooks after it are not asked. */
  granted: string | undefined;
  suspended: DispatchResult["suspended"];
  /** The ledger rows this dispatch writes: a resumed one starts at its waiting hook, a suspended one ends before it. */
  private recordFrom = 0;
  private recordTo: number | undefined;
  /** The hook a crash cut short after it announced its side effect (DispatchOptions.interrupted). */
  private interrupted: number | undefined;
  hook!: RuntimeHook;
  shadow = false;
  readonly blocking: boolean;
  readonly startedAt: number;
  /** The context per dialect (Hookplane's under ""), each built once per dispatch on first use. */
  private readonly builtContexts = new Map<string, HookContext>();
  private builtSubject: string | undefined;
  private walkedSubject = false;
  private builtVars: Record<string, unknown> | undefined;

  constructor(
    readonly hooks: readonly CompiledHook[],
    readonly event: HookEvent,
    readonly signal: AbortSignal | undefined,
    readonly options: ExecutorOptions,
    private readonly beforeSideEffect?: DispatchOptions["beforeSideEffect"],
  ) {
    this.ledger = new Array<LedgerEntry>(hooks.length);
    this.blocking = isBlockingEvent(event.type);
    this.startedAt = options.now();
  }

  context(): HookContext {
    return this.contextFor(this.hook?.dialect);
  }

  /** The context a hook of `dialect` reads (dialect-contracts.ts): herdctl's differs from Hookplane's. */
  contextFor(dialect: RuntimeHook["dialect"]): HookContext {
    const key = dialect ?? "";
    let context = this.builtContexts.get(key);
    if (!context) {
      context = contextForDialect(dialect, this.event);
      this.builtContexts.set(key, context);
    }
    return context;
  }

  subjectJson(): string {
    if (this.builtSubject === undefined) this.builtSubject = safeJson(subjectOf(this.event));
    return this.builtSubject;
  }

  /**
   * The first ask walks the input instead of building its JSON (one denyIf hook, the common case,
   * then builds none); later ones answer "maybe" so the JSON is built once and shared.
   */
  subjectMayContain(needle: string): boolean {
    if (this.builtSubject !== undefined || this.walkedSubject) return true;
    this.walkedSubject = true;
    try {
      return jsonMayContain(subjectOf(this.event), needle);
    } catch {
      return true; // a getter threw: let JSON.stringify meet it the usual way
    }
  }

  templateVars(): Record<string, unknown> {
    return (this.builtVars ??= templateVarsOf(this.event));
  }

  /** Synchronous executors name no secrets. */
  secrets(): Promise<ReadonlyMap<string, SecretValue>> {
    return Promise.resolve(new Map());
  }

  /**
   * Picks a suspended dispatch up at its waiting hook, with what the hooks before it said. If that
   * hook is gone (the chain was edited while the run waited), the whole chain runs again.
   */
  resumeFrom(point: SuspendPoint): number {
    const index = this.hooks.findIndex((h) => h.id === point.hookId);
    if (index < 0) return 0;
    if (point.context?.length) this.contextTexts = [...point.context];
    if (point.outputs?.length) this.outputs = [...point.outputs];
    if (point.reminders?.length) this.reminders = [...point.reminders];
    this.recordFrom = index;
    return index;
  }

  /**
   * Picks up a dispatch a crash cut short at a hook that had announced its side effect: the hooks
   * before it ran and are in the ledger. If that hook is gone, the whole chain runs again.
   */
  interruptedAt(point: HookProgress): number {
    const index = this.resumeFrom({ ...point, approvalId: "" });
    if (this.hooks[index]?.id === point.hookId) this.interrupted = index;
    return index;
  }

  /** Nobody waits for the approval any more: its hook's row says so, and the chain ends there. */
  abandonAt(index: number, point: SuspendPoint, why: string, sink: HookRuntimeOptions["ledger"]): DispatchResult {
    const hook = this.hooks[index];
    const entry = newEntry(hook, this.event, this.startedAt);
    this.ledger[index] = entry;
    entry.matched = true;
    this.markAbandoned(hook, entry, { suspend: { approvalId: point.approvalId, abandoned: why } });
    for (let i = index + 1; i < this.hooks.length; i++) {
      const rest = newEntry(this.hooks[i], this.event, this.startedAt);
      rest.reason = this.stopped;
      this.ledger[i] = rest;
    }
    return this.finish(sink);
  }

  private markAbandoned(hook: CompiledHook, entry: LedgerEntry, outcome: ActionSuspend) {
    const { approvalId, abandoned, approval } = outcome.suspend;
    entry.reason = capText(`abandoned: ${abandoned}`, REASON_CAP);
    entry.approval = { decision: "deny", timedOut: false, ...approval, approvalId, status: "abandoned", reason: abandoned };
    this.verdict = "suspend";
    this.suspended = { hookId: hook.id, approvalId, abandoned };
    this.stopped = `not run: the approval of hook ${hook.id} was abandoned`;
  }

  killAll(sink: HookRuntimeOptions["ledger"], from = 0): DispatchResult {
    for (let i = from; i < this.hooks.length; i++) {
      const entry = newEntry(this.hooks[i], this.event, this.startedAt);
      entry.reason = "kill switch: every hook is disabled";
      this.ledger[i] = entry;
    }
    return this.finish(sink);
  }

  /** Runs hooks from `index` synchronously until one needs to await; then continues async. */
  runFrom(index: number, runtime: HookRuntimeOptions, options: ExecutorOptions): DispatchResult | Promise<DispatchResult> {
    const hooks = this.hooks;
    for (let i = index; i < hooks.length; i++) {
      const hook = hooks[i];
      const entry = newEntry(hook, this.event, this.startedAt);
      this.ledger[i] = entry;
      if (i === this.interrupted) {
        this.interrupted = undefined;
        if (!hook.action?.retrySafe?.(options)) {
          // It may have done its work: at most once, so it is not run again; onFailure decides.
          entry.matched = true;
          this.apply(hook, entry, { failure: INTERRUPTED_HOOK }, noRedaction);
          continue;
        }
      }
      const notRun = this.stopped ?? this.notAsked(hook) ?? this.whyNotMatched(hook);
      if (notRun !== undefined) {
        entry.reason = notRun;
        continue;
      }
      entry.matched = true;
      const refusal = hook.compileError ?? trustRefusal(hook, runtime);
      if (refusal !== undefined) {
        this.apply(hook, entry, { failure: refusal }, noRedaction);
        continue;
      }
      const executor = hook.action!.executor;
      if (executor.async) return this.runAsync(i, hook, executor, entry, runtime, options);
      this.hook = hook.spec;
      this.shadow = hook.shadow;
      let outcome: ActionOutcome;
      try {
        outcome = executor.run(this);
      } catch (error) {
        outcome = { failure: `the hook threw: ${describe(error)}` };
      }
      // Only async executors (approve) can wait for a person.
      if (isSuspend(outcome)) outcome = { failure: "an in-process hook cannot wait for a person" };
      this.apply(hook, entry, outcome, noRedaction);
    }
    return this.finish(runtime.ledger);
  }

  private async runAsync(
    index: number,
    hook: CompiledHook,
    executor: AsyncExecutor,
    entry: LedgerEntry,
    runtime: HookRuntimeOptions,
    options: ExecutorOptions,
  ): Promise<DispatchResult> {
    const started = options.now();
    entry.startedAt = started;
    if (hook.action?.sideEffect && this.beforeSideEffect) {
      const refused = await this.announce(index, runtime.ledger);
      if (refused !== undefined) {
        this.apply(hook, entry, { failure: refused }, noRedaction);
        return this.runFrom(index + 1, runtime, options);
      }
    }
    const run = new AsyncRun(this, hook);
    let outcome = await runWithDeadline(executor, run, this.signal);
    if (!isFailure(outcome) && !isSuspend(outcome) && outcome.ask) {
      if (this.blocking) {
        const asked = await runWithDeadline(askExecutor(outcome.ask.message), run, this.signal);
        outcome = isSuspend(asked) ? asked : { ...asked, stdout: outcome.stdout, stderr: outcome.stderr };
      } else outcome = { ...outcome, reason: `asked for approval on ${this.event.type}, which cannot wait: allowed` };
    }
    entry.durationMs = options.now() - started;
    if (isSuspend(outcome)) {
      if (outcome.suspend.abandoned === undefined) return this.suspendAt(index, hook, outcome, runtime.ledger);
      this.markAbandoned(hook, entry, outcome);
    } else this.apply(hook, entry, outcome, run.redactor);
    return this.runFrom(index + 1, runtime, options);
  }

  /**
   * The hook at `index` is about to act outside the process: the rows of the hooks before it go to
   * the sink now (they are not written again), then the caller stores where the dispatch stands.
   * Returns why the action must not start, if the caller could not store it.
   */
  private async announce(index: number, sink: HookRuntimeOptions["ledger"]): Promise<string | undefined> {
    this.write(sink, this.ledger.slice(this.recordFrom, index).filter(Boolean));
    this.recordFrom = index;
    try {
      await this.beforeSideEffect!({
        hookId: this.hooks[index].id,
        ...(this.contextTexts && { context: [...this.contextTexts] }),
        ...(this.outputs && { outputs: [...this.outputs] }),
        ...(this.reminders && { reminders: [...this.reminders] }),
      });
      return undefined;
    } catch (error) {
      return `not started: where the dispatch stands could not be stored (${describe(error)})`;
    }
  }

  /**
   * A person has not decided: the dispatch ends here with `suspend`. The rows of the hooks that
   * ran are written now; the waiting hook's row is written once, when the run resumes and it settles.
   */
  private suspendAt(index: number, hook: CompiledHook, outcome: ActionSuspend, sink: HookRuntimeOptions["ledger"]): DispatchResult {
    this.verdict = "suspend";
    this.suspended = {
      hookId: hook.id,
      approvalId: outcome.suspend.approvalId,
      ...(this.contextTexts && { context: [...this.contextTexts] }),
      ...(this.outputs && { outputs: [...this.outputs] }),
      ...(this.reminders && { reminders: [...this.reminders] }),
    };
    this.recordTo = index;
    return this.finish(sink);
  }

  private notAsked(hook: CompiledHook): string | undefined {
    return this.granted !== undefined && hook.actionType === "approve" ? `not asked: hook ${this.granted} allows this call` : undefined;
  }

  private whyNotMatched(hook: CompiledHook): string | undefined {
    if (!hook.enabled) return "disabled";
    const event = this.event;
    const target = hook.scopeTarget;
    if (target) {
      // In a flow, a hook scoped to the flow applies to every stage, one scoped to the stage agent to its stage.
      const flow = event.flow;
      if (target.kind === "agent" && target.id !== event.agentId && target.id !== event.agentName && target.id !== flow?.id && target.id !== flow?.name) {
        return `scope ${hook.scope} does not apply to agent ${event.agentName}`;
      }
      if (target.kind === "schedule" && target.id !== event.scheduleId) {
        return `scope ${hook.scope} does not apply to ${event.scheduleId ? `schedule ${event.scheduleId}` : "a run without a schedule"}`;
      }
    }
    if (hook.outcomes) {
      const outcome = String(event.data.outcome ?? "none");
      if (!hook.outcomes.has(outcome)) return `outcome ${outcome} not in onOutcomes [${[...hook.outcomes].join(", ")}]`;
    }
    if (hook.matcher) {
      const subject = matcherSubject(event);
      if (!hook.matcher(subject.name)) return `matcher ${hook.spec.matcher} did not match ${subject.kind} ${subject.name}`;
    }
    if (hook.when) {
      const why = hook.when.check(this.contextFor(hook.spec.dialect));
      if (why !== undefined) return why;
    }
    return hook.action?.filter?.(event);
  }

  /** Turns one hook's outcome into ledger fields and, unless shadowed, into the dispatch's result. */
  private apply(hook: CompiledHook, entry: LedgerEntry, outcome: ActionResult | ActionFailure, redact: Redactor) {
    entry.exitCode = outcome.exitCode;
    if (outcome.stdout) entry.stdout = capText(redact(outcome.stdout), LEDGER_TEXT_CAP);
    if (outcome.stderr) entry.stderr = capText(redact(outcome.stderr), LEDGER_TEXT_CAP);
    if (isFailure(outcome)) {
      entry.failed = true;
      entry.timedOut = outcome.timedOut === true;
      entry.verdict = hook.failureBlocks ? "block" : "allow";
      const reason = capText(redact(outcome.failure), REASON_CAP);
      entry.reason = hook.failureBlocks ? reason : `${reason} (onFailure: continue)`;
      if (!hook.failureBlocks) return;
      if (hook.shadow) entry.ignored = true;
      else if (this.blocking) this.block(hook, reason);
      else {
        // herdctl's continue_on_error: false: a failure stops the chain even where nothing can block.
        entry.ignored = true;
        this.stopped = `not run: hook ${hook.id} failed and its onFailure stops the chain`;
      }
      return;
    }
    entry.verdict = outcome.verdict;
    if (outcome.reason !== undefined) entry.reason = capText(redact(outcome.reason), REASON_CAP);
    if (outcome.approval) {
      entry.approval = outcome.approval;
      // Nobody decided in time: a timeout for the health panel, not a person's "no".
      entry.timedOut = outcome.approval.timedOut;
    }
    const given = outcome.context ?? outcome.output;
    if (given !== undefined) entry.output = capText(redact(outcome.context && outcome.output ? `${outcome.context}\n${outcome.output}` : given), LEDGER_TEXT_CAP);
    if (hook.shadow) {
      entry.ignored = outcome.verdict !== "allow" || given !== undefined || outcome.grants === true;
      return;
    }
    if (outcome.grants) this.granted ??= hook.id;
    if (outcome.approval) this.approval = { ...outcome.approval, hookId: hook.id };
    if (outcome.context !== undefined) {
      const text = redact(outcome.context);
      (this.contextTexts ??= []).push(text);
      (this.reminders ??= []).push(text);
    }
    if (outcome.output !== undefined) {
      const text = redact(outcome.output);
      (this.outputs ??= []).push(text);
      (this.reminders ??= []).push(`hook ${hook.id} output: ${text}`);
    }
    if (outcome.verdict === "block") {
      const reason = entry.reason ?? "blocked";
      if (this.blocking) this.block(hook, reason);
      else {
        entry.ignored = true;
        (this.reminders ??= []).push(`hook ${hook.id} blocked ${this.subjectName()}: ${reason} (${this.event.type} cannot be blocked)`);
      }
    } else if (outcome.verdict === "skip") {
      this.verdict = "skip";
      this.reason = entry.reason;
      this.blockedBy = hook.id;
      this.stopped = `not run: hook ${hook.id} skipped the remaining hooks`;
    }
  }

  private block(hook: CompiledHook, reason: string) {
    this.verdict = "block";
    this.reason = reason;
    this.blockedBy = hook.id;
    this.stopped = `not run: hook ${hook.id} blocked`;
    (this.reminders ??= []).push(`hook ${hook.id} blocked ${this.subjectName()}: ${reason}`);
  }

  private subjectName(): string {
    const tool = this.event.data.toolName;
    return typeof tool === "string" ? tool : this.event.type;
  }

  private write(sink: HookRuntimeOptions["ledger"], rows: LedgerEntry[]) {
    if (!sink || rows.length === 0) return;
    try {
      const pending = sink.record(rows, this.event);
      if (pending) pending.catch((error) => this.options.logger.error("hook ledger sink failed", { error: describe(error) }));
    } catch (error) {
      this.options.logger.error("hook ledger sink failed", { error: describe(error) });
    }
  }

  /** The result; its `ledger` holds the rows written at the end (not those written at announce). */
  private finish(sink: HookRuntimeOptions["ledger"]): DispatchResult {
    const written =
      this.recordFrom === 0 && this.recordTo === undefined ? this.ledger : this.ledger.slice(this.recordFrom, this.recordTo).filter(Boolean);
    this.write(sink, written);
    return {
      verdict: this.verdict,
      reason: this.reason,
      blockedBy: this.blockedBy,
      context: this.contextTexts ?? NO_TEXTS,
      output: this.outputs?.join("\n\n"),
      reminders: this.reminders ?? NO_TEXTS,
      ledger: written,
      approval: this.approval,
      ...(this.suspended && { suspended: this.suspended }),
    };
  }
}

/** The ActionRun of one async hook: its own secrets and redactor, the dispatch's lazy context. */
class AsyncRun implements ActionRun {
  readonly hook: RuntimeHook;
  readonly shadow: boolean;
  readonly event: HookEvent;
  readonly options: ExecutorOptions;
  redactor: Redactor = noRedaction;
  private resolved: Promise<ReadonlyMap<string, SecretValue>> | undefined;

  constructor(
    private readonly dispatch: Dispatch,
    private readonly compiled: CompiledHook,
  ) {
    this.hook = compiled.spec;
    this.shadow = compiled.shadow;
    this.event = dispatch.event;
    this.options = dispatch.options;
  }

  context = () => this.dispatch.contextFor(this.hook.dialect);
  subjectJson = () => this.dispatch.subjectJson();
  subjectMayContain = (needle: string) => this.dispatch.subjectMayContain(needle);
  templateVars = () => this.dispatch.templateVars();

  /** Only the secrets this hook names are ever resolved; each value found joins the redactor. */
  secrets(): Promise<ReadonlyMap<string, SecretValue>> {
    return (this.resolved ??= this.resolveSecrets());
  }

  private async resolveSecrets(): Promise<ReadonlyMap<string, SecretValue>> {
    const names = this.compiled.action?.secretNames ?? [];
    const secrets = new Map<string, SecretValue>();
    const port = this.options.secrets;
    if (!port || names.length === 0) return secrets;
    for (const name of names) {
      const found = await port.get(name);
      if (found === undefined) continue;
      secrets.set(name, typeof found === "string" ? { value: found, hosts: [] } : found);
    }
    this.redactor = createRedactor([...secrets.values()].map((s) => s.value));
    return secrets;
  }
}

/**
 * Runs an async executor under the run's signal and, when it has one, the hook's deadline. The
 * work's own rejection after a deadline is swallowed; the timer and the listener are always removed.
 */
async function runWithDeadline(executor: AsyncExecutor, run: ActionRun, parent: AbortSignal | undefined): Promise<ActionOutcome> {
  if (parent?.aborted) return { failure: "aborted (the run was cancelled)" };
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  parent?.addEventListener("abort", onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    const work = Promise.resolve()
      .then(() => executor.run(run, controller.signal))
      .catch((error): ActionOutcome => ({ failure: `the hook threw: ${describe(error)}` }));
    const ms = executor.timeoutMs;
    if (ms === undefined) return await work;
    const deadline = new Promise<ActionOutcome>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve({ failure: `timed out after ${ms} ms`, timedOut: true });
      }, ms);
    });
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener("abort", onAbort);
  }
}

/** Claude Code's `ask`: the default approval policy (30 minutes, then deny). */
function askExecutor(message: string | undefined): AsyncExecutor {
  return { async: true, timeoutMs: undefined, run: (run, signal) => awaitApproval(run, signal, { message }) };
}

function trustRefusal(hook: CompiledHook, runtime: HookRuntimeOptions): string | undefined {
  if (hook.runsCode && !runtime.allowCodeExecution) return `${hook.actionType} hook ${hook.id} not run: ${CODE_EXECUTION_OFF}`;
  return undefined;
}

function newEntry(hook: CompiledHook, event: HookEvent, startedAt: number): LedgerEntry {
  return {
    hookId: hook.id,
    hookVersion: hook.version,
    event: event.type,
    scope: hook.scope,
    action: hook.actionType,
    mode: hook.shadow ? "shadow" : "enforce",
    matched: false,
    verdict: undefined,
    reason: undefined,
    failed: false,
    timedOut: false,
    ignored: false,
    exitCode: undefined,
    stdout: undefined,
    stderr: undefined,
    output: undefined,
    approval: undefined,
    startedAt,
    durationMs: 0,
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
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

/** What denyIf patterns read: the tool input, or the whole payload on events without one. */
function subjectOf(event: HookEvent): unknown {
  const data = event.data;
  return data.toolInput !== undefined ? data.toolInput : data;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
