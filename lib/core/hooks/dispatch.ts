/**
 * One dispatch of a chain: runs the bound hooks in order, synchronously until one needs to await,
 * keeps one ledger row per hook, and turns outcomes into the result by the chain rules
 * (chain-rules.ts). The factory (runtime.ts) makes one per event.
 */
import { contextForDialect } from "./dialect-contracts";
import { AsyncRun, askExecutor, describe, runWithDeadline } from "./async-hook-run";
import { keepOnlyRecordedOutput, modifyCall } from "./call-modification";
import type { OutputRedaction } from "./output-redaction";
import { chainStep, waivedBy, whyNotAsked, whyScopeExcludes } from "./chain-rules";
import { hookEvent, matcherSubject, templateVarsOf, type HookContext, type HookEvent } from "./event";
import { isBlockingEvent } from "./events";
import type { CompiledHook } from "./compiled-hooks";
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
import { newEntry, REASON_CAP } from "./ledger-row";
import type { SecretValue, SpentToken } from "./ports";
import { capText, noRedaction, type Redactor } from "./redact";
import { INTERRUPTED_HOOK, type DispatchOptions, type DispatchResult, type HookProgress, type HookRuntimeOptions, type RuntimeHook } from "./runtime-types";
import { CODE_EXECUTION_OFF } from "./trust";

/** Results share one frozen empty list where there is nothing to say (callers never mutate them). */
export const NO_TEXTS = Object.freeze([]) as unknown as string[];

/**
 * The state of one dispatch. It doubles as the ActionRun of synchronous executors (they read
 * `hook`, `shadow`, `event` and the lazy context while it points at them), so an in-process hook
 * costs one ledger row and nothing else.
 */
export class Dispatch implements ActionRun {
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
  /** Set once a hook changed the tool input: the event's `toolInput` is then the changed one. */
  toolInput: Record<string, unknown> | undefined;
  /** Set once a hook changed the tool output: the event's `output` is then the changed one. */
  toolOutput: { value: unknown } | undefined;
  /** Set once a hook redacted the tool output, enforced or in shadow: what the record keeps of it. */
  redaction: OutputRedaction | undefined;
  modifiedBy: string[] | undefined;
  askUser: DispatchResult["askUser"];
  /**
   * What the hooks that let the call through spent on it (a limit's token), with each one's ledger
   * row: given back if the chain blocks the call, and the row says so.
   */
  private spent: { giveBack: () => void; entry: LedgerEntry; spentOn?: SpentToken }[] | undefined;
  /** What the hooks before a person's wait spent on the call, carried from the suspended dispatch (SuspendPoint.spent). */
  carried: SpentToken[] | undefined;
  /** The person's exception that matches this call (null: none), found when the chain starts. */
  private exception: CompiledHook | null | undefined;
  suspended: DispatchResult["suspended"];
  /** The ledger rows this dispatch writes: a resumed one starts at its waiting hook, a suspended one ends before it. */
  recordFrom = 0;
  private recordTo: number | undefined;
  /** The hook a crash cut short after it announced its side effect (DispatchOptions.interrupted). */
  interrupted: number | undefined;
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
    /** Replaced (never mutated) when a hook changes the call: the hooks after it see the change. */
    public event: HookEvent,
    /** Read only when an async hook runs: a caller's signal may be made on first read (route-server.ts). */
    private readonly control: Pick<DispatchOptions, "signal"> | undefined,
    readonly options: ExecutorOptions,
    private readonly beforeSideEffect?: DispatchOptions["beforeSideEffect"],
  ) {
    this.ledger = new Array<LedgerEntry>(hooks.length);
    this.blocking = isBlockingEvent(event.type);
    this.startedAt = options.now();
  }

  get signal(): AbortSignal | undefined {
    return this.control?.signal;
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

  markAbandoned(hook: CompiledHook, entry: LedgerEntry, outcome: ActionSuspend) {
    const { approvalId, abandoned, approval } = outcome.suspend;
    entry.reason = capText(`abandoned: ${abandoned}`, REASON_CAP);
    entry.approval = { decision: "deny", timedOut: false, ...approval, approvalId, status: "abandoned", reason: abandoned };
    this.verdict = "suspend";
    this.suspended = { hookId: hook.id, approvalId, abandoned };
    this.stopped = `not run: the approval of hook ${hook.id} was abandoned`;
  }

  /** Runs hooks from `index` synchronously until one needs to await; then continues async. */
  runFrom(index: number, runtime: HookRuntimeOptions, options: ExecutorOptions): DispatchResult | Promise<DispatchResult> {
    const hooks = this.hooks;
    if (this.exception === undefined) this.exception = this.matchingException();
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
      const notRun = this.stopped ?? whyNotAsked(hook, this.exception, this.granted) ?? this.whyNotMatched(hook);
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
      this.hook = hook.spec;
      this.shadow = hook.shadow;
      let outcome: ActionOutcome | undefined;
      try {
        // An async action that can answer at once (executor.now) runs in step, like an in-process one.
        outcome = executor.async ? executor.now?.(this) : executor.run(this);
      } catch (error) {
        outcome = { failure: `the hook threw: ${describe(error)}` };
      }
      if (outcome === undefined) return this.runAsync(i, hook, executor as AsyncExecutor, entry, runtime, options);
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
        // The hook rewrote the call and wants a person to confirm it: they are shown the rewrite.
        if (outcome.modify?.input && !hook.shadow) modifyCall(this, hook, entry, { verdict: "allow", modify: { input: outcome.modify.input } });
        const asked = await runWithDeadline(askExecutor(outcome.ask.message), new AsyncRun(this, hook), this.signal);
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
      await this.beforeSideEffect!({ hookId: this.hooks[index].id, ...this.progress() });
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
    this.suspended = { hookId: hook.id, approvalId: outcome.suspend.approvalId, ...this.progress() };
    this.recordTo = index;
    return this.finish(sink);
  }

  /** What the hooks so far said and changed, as plain JSON (a suspended or announced dispatch goes on from it). */
  private progress(): Omit<HookProgress, "hookId"> {
    const spent = this.spentTokens();
    return {
      ...(this.contextTexts && { context: [...this.contextTexts] }),
      ...(this.outputs && { outputs: [...this.outputs] }),
      ...(this.reminders && { reminders: [...this.reminders] }),
      ...(this.toolInput && { toolInput: this.toolInput }),
      ...(this.toolOutput && { toolOutput: this.toolOutput }),
      ...(this.redaction && { redaction: this.redaction }),
      ...(this.modifiedBy && { modifiedBy: [...this.modifiedBy] }),
      ...(this.askUser && { askUser: this.askUser }),
      ...(spent && { spent }),
    };
  }

  /** What the call has cost the limits so far, as plain JSON (carried and spent here); undefined when nothing. */
  private spentTokens(): SpentToken[] | undefined {
    const here = this.spent?.flatMap((s) => (s.spentOn ? [s.spentOn] : []));
    const all = [...(this.carried ?? []), ...(here ?? [])];
    return all.length > 0 ? all : undefined;
  }

  /**
   * Gives back tokens spent in an earlier dispatch of this call (it waited for a person): to the
   * window's count, as no lease of this process holds them. Best effort, as giveBack.
   */
  releaseTokens(tokens: readonly SpentToken[]) {
    const release = this.options.limits?.release;
    if (!release) return;
    for (const token of tokens) {
      try {
        release.call(this.options.limits, token, { allowed: true, count: 0 });
      } catch (error) {
        this.options.logger.error("a hook's give-back failed", { error: describe(error) });
      }
    }
  }

  /** The call carries a new input from now on: the hooks after this one (and their matchers) see it. */
  setInput(input: Record<string, unknown>) {
    this.toolInput = input;
    this.replaceEvent({ ...this.event.data, toolInput: input });
  }

  setOutput(output: unknown) {
    this.toolOutput = { value: output };
    this.replaceEvent({ ...this.event.data, output });
  }

  private replaceEvent(data: Record<string, unknown>) {
    this.event = hookEvent({ ...this.event, data });
    this.builtContexts.clear();
    this.builtSubject = undefined;
    this.walkedSubject = false;
    this.builtVars = undefined;
  }

  /**
   * Precedence (docs/hook-model.md): deny wins, unless a person's rule an admin marked as an
   * exception matches the this. It is found before the chain runs, since the broader hooks it
   * waives run first; a shadow exception waives nothing (its row says what it would have done).
   */
  private matchingException(): CompiledHook | null {
    if (!this.blocking) return null;
    for (const hook of this.hooks) {
      if (hook.exception && !hook.shadow && !hook.compileError && hook.actionType === "allow" && this.whyNotMatched(hook) === undefined) return hook;
    }
    return null;
  }

  private whyNotMatched(hook: CompiledHook): string | undefined {
    if (!hook.enabled) return "disabled";
    const event = this.event;
    const target = hook.scopeTarget;
    if (target) {
      const why = whyScopeExcludes(hook.scope, target, event);
      if (why !== undefined) return why;
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
      const step = chainStep("failed", hook.shadow, hook.failureBlocks, this.blocking, false);
      if (step === "shadow") entry.ignored = true;
      else if (step === "block") this.block(hook, reason);
      else if (step === "stop") {
        entry.ignored = true;
        this.stopped = `not run: hook ${hook.id} failed and its onFailure stops the chain`;
      }
      return;
    }
    const step = chainStep(outcome.verdict, hook.shadow, hook.failureBlocks, this.blocking, this.exception != null && waivedBy(hook));
    entry.verdict = outcome.verdict;
    if (outcome.giveBack && outcome.verdict === "allow") (this.spent ??= []).push({ giveBack: outcome.giveBack, entry, spentOn: outcome.spentOn });
    if (outcome.reason !== undefined) entry.reason = capText(redact(outcome.reason), REASON_CAP);
    if (outcome.approval) {
      entry.approval = outcome.approval;
      // Nobody decided in time: a timeout for the health panel, not a person's "no".
      entry.timedOut = outcome.approval.timedOut;
    }
    const given = outcome.context ?? outcome.output;
    if (given !== undefined) entry.output = capText(redact(outcome.context && outcome.output ? `${outcome.context}\n${outcome.output}` : given), LEDGER_TEXT_CAP);
    if (outcome.modify && outcome.verdict !== "block") modifyCall(this, hook, entry, outcome);
    if (step === "shadow") {
      entry.ignored = outcome.verdict !== "allow" || given !== undefined || outcome.grants === true || outcome.modify !== undefined || outcome.askUser !== undefined;
      return;
    }
    if (outcome.askUser) {
      if (this.event.type === "tool.pre") this.askUser ??= { hookId: hook.id, reason: outcome.askUser.reason };
      else entry.ignored = true;
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
    if (step === "block") this.block(hook, entry.reason ?? "blocked");
    else if (step === "waive") {
      // The deny is recorded as decided and waived, so the ledger shows both rules.
      entry.ignored = true;
      entry.reason = capText(`${entry.reason ?? "blocked"} (waived: exception ${this.exception!.id} allows this call for this person)`, REASON_CAP);
    } else if (step === "note") {
      entry.ignored = true;
      (this.reminders ??= []).push(`hook ${hook.id} blocked ${this.subjectName()}: ${entry.reason ?? "blocked"} (${this.event.type} cannot be blocked)`);
    } else if (step === "skip") {
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

  subjectName(): string {
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

  private giveBack(spent: NonNullable<Dispatch["spent"]>) {
    if (this.spent !== spent) return;
    this.spent = undefined;
    for (const { giveBack } of spent) {
      try {
        giveBack();
      } catch (error) {
        this.options.logger.error("a hook's give-back failed", { error: describe(error) });
      }
    }
  }

  /** The result; its `ledger` holds the rows written at the end (not those written at announce). */
  finish(sink: HookRuntimeOptions["ledger"]): DispatchResult {
    const written =
      this.recordFrom === 0 && this.recordTo === undefined ? this.ledger : this.ledger.slice(this.recordFrom, this.recordTo).filter(Boolean);
    if (this.redaction) keepOnlyRecordedOutput(written, this.redaction);
    // The call did not go through (blocked, or its approval abandoned): what a hook spent on letting
    // it through is given back, and its row says so. A call waiting for a person keeps it until it is decided.
    const spent = this.spent;
    const notThrough = this.verdict === "block" || this.suspended?.abandoned !== undefined;
    if (spent && notThrough) {
      for (const { entry } of spent) entry.reason = capText(`${entry.reason ?? "allowed"} (given back: the call did not go through)`, REASON_CAP);
    }
    // Resumed after a person's wait and not let through: what the hooks before the wait spent
    // goes back too, said on the row of the hook that waited (theirs were written at the wait).
    const carried = notThrough ? this.carried : undefined;
    if (carried && written[0]) {
      const tokens = carried.length === 1 ? "the limit token" : `${carried.length} limit tokens`;
      written[0].reason = capText(`${written[0].reason ?? ""} (given back: ${tokens} this call spent before it waited)`.trimStart(), REASON_CAP);
    }
    this.write(sink, written);
    if (spent && notThrough) this.giveBack(spent);
    if (carried) {
      this.carried = undefined;
      this.releaseTokens(carried);
    }
    const later = spent && this.verdict === "allow" ? () => this.giveBack(spent) : undefined;
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
      ...(this.toolInput && { toolInput: this.toolInput }),
      ...(this.toolOutput && { toolOutput: this.toolOutput }),
      ...(this.redaction && { redaction: this.redaction }),
      ...(this.modifiedBy && { modifiedBy: this.modifiedBy }),
      ...(this.askUser && { askUser: this.askUser }),
      ...(later && { giveBack: later }),
    };
  }
}

function trustRefusal(hook: CompiledHook, runtime: HookRuntimeOptions): string | undefined {
  if (hook.runsCode && !runtime.allowCodeExecution) return `${hook.actionType} hook ${hook.id} not run: ${CODE_EXECUTION_OFF}`;
  return undefined;
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
