/**
 * The contract between the runtime and one action executor. An executor is compiled once per hook
 * (regexes, globs, templates checked up front) and then run per dispatch; synchronous executors
 * (block, context, log) run inline with no timer, no promise and no abort listener.
 */
import type { HookContext, HookEvent } from "../event";
import type { HookVerdict } from "../ledger";
import type { ApprovalDecision, ApprovalPort, HookLogger, NoticePort, RateLimitPort, SecretPort, SecretValue, SpentToken, SessionHistoryPort, ShellLauncher, ToolPort } from "../ports";
import type { CodeHookRegistry } from "../code-hooks";
import type { SafeFetchPolicy } from "../http-client";
import type { RuntimeHook } from "../runtime-types";

export interface ActionResult {
  verdict: HookVerdict;
  reason?: string;
  /** Text injected for the model (AgenTopology `type: prompt`, `additionalContext`). */
  context?: string;
  /** Hook output shown to the model (Loom `{output}`, a tool hook's output). */
  output?: string;
  exitCode?: number;
  stdout?: string;
  stderr?: string;
  approval?: ApprovalDecision;
  /** Claude Code `ask`: the runtime turns it into an approval request after the action settles. */
  ask?: { message?: string };
  /** `allow`: the call needs no approval; the runtime skips the approve hooks after this one. */
  grants?: boolean;
  /**
   * What the call carries from now on (a `modify` hook, an approver's edit, a hook's `updatedInput`
   * or `updatedToolOutput`): `input` the whole new tool input, `output` the new tool output;
   * `redacted` says the output change hides secrets (the ledger keeps a hash of the original).
   */
  modify?: { input?: Record<string, unknown>; output?: unknown; redacted?: boolean };
  /** `ask`: the agent asks its own user before the call runs. */
  askUser?: { reason: string };
  /**
   * What the hook spent on letting the call through, given back when the chain then blocks the
   * call (a `limit` hook's token: it counts the calls that went through).
   */
  giveBack?: () => void;
  /**
   * What `giveBack` gives back, as plain JSON (a limit's take): a dispatch that suspends for a
   * person carries it to its resumption, which gives it back if the call does not go through.
   */
  spentOn?: SpentToken;
}

/** An error or timeout of the hook itself; the runtime turns it into a verdict via onFailure. */
export interface ActionFailure {
  failure: string;
  timedOut?: boolean;
  exitCode?: number;
  stdout?: string;
  stderr?: string;
}

/**
 * The hook waits on a person and nobody has decided: the run suspends on `approvalId` and this
 * hook runs again when it resumes. `abandoned` instead says nobody waits any more (the caller left,
 * the run ended): the hook's ledger row is final and the rest of the chain does not run.
 */
export interface ActionSuspend {
  suspend: { approvalId: string; abandoned?: string; approval?: ApprovalDecision };
}

export type ActionOutcome = ActionResult | ActionFailure | ActionSuspend;

export function isFailure(outcome: ActionOutcome): outcome is ActionFailure {
  return (outcome as ActionFailure).failure !== undefined;
}

export function isSuspend(outcome: ActionOutcome): outcome is ActionSuspend {
  return (outcome as ActionSuspend).suspend !== undefined;
}

/** What the runtime was configured with, as executors see it. */
export interface ExecutorOptions {
  approvals?: ApprovalPort;
  limits?: RateLimitPort;
  history?: SessionHistoryPort;
  tools?: ToolPort;
  secrets?: SecretPort;
  codeHooks?: CodeHookRegistry;
  logger: HookLogger;
  now: () => number;
  /** Webhooks: the admin's allow-list, and the older only-these-hosts list. */
  http: SafeFetchPolicy;
  /** Slack and Discord: the allow-list plus the configured base URLs' hosts (operator configuration). */
  noticeHttp: SafeFetchPolicy;
  slackBaseUrl: string;
  discordBaseUrl: string;
  /** Links back to the dashboard, decision links, secret masking for notices and webhooks. */
  notices?: NoticePort;
  /** The environment a command starts from (PATH, HOME, LANG...), before hook vars and secrets. */
  commandBaseEnv: Record<string, string>;
  /** How `command` hooks start their shell (the server's sandbox); undefined = plain `sh -c`. */
  shellLauncher?: ShellLauncher;
  maxOutputBytes: number;
}

/** One hook's view of one dispatch. */
export interface ActionRun {
  hook: RuntimeHook;
  event: HookEvent;
  /** The flat event context, built once per dispatch on first use. */
  context(): HookContext;
  /** JSON of the tool input (or of the payload), built once per dispatch on first use. */
  subjectJson(): string;
  /**
   * False only when that JSON certainly does not contain `needle` (from json-prefilter's
   * `jsonNeedle`), decided without building it when it can be; true when it does or may.
   */
  subjectMayContain(needle: string): boolean;
  templateVars(): Record<string, unknown>;
  shadow: boolean;
  options: ExecutorOptions;
  /** Resolved secrets this hook names, with their hosts; the runtime redacts their values from the ledger. */
  secrets(): Promise<ReadonlyMap<string, SecretValue>>;
}

export type SyncExecutor = { async: false; run(run: ActionRun): ActionOutcome };
export type AsyncExecutor = {
  async: true;
  /** The runtime aborts `signal` and settles as a timeout after this; undefined = the executor times itself. */
  timeoutMs: number | undefined;
  run(run: ActionRun, signal: AbortSignal): Promise<ActionOutcome>;
  /** The outcome at once when the action can tell without waiting (a limit spending held tokens), else undefined. */
  now?(run: ActionRun): ActionOutcome | undefined;
};
export type Executor = SyncExecutor | AsyncExecutor;

/** Extra filter an action adds to matching (approve `tools` globs): undefined = applies. */
export type ActionFilter = (event: HookEvent) => string | undefined;

export interface CompiledAction {
  executor: Executor;
  filter?: ActionFilter;
  /** Secret names the action references, so only those are resolved and exposed. */
  secretNames: readonly string[];
  /**
   * The action acts outside the process (runs a tool or a command): its start is announced to
   * `beforeSideEffect`, and after a crash it is not run again unless `retrySafe` says so.
   */
  sideEffect?: boolean;
  retrySafe?: (options: ExecutorOptions) => boolean;
}

/** An action that names no secret and runs inline (no timer, no promise): its compiled form. */
export function inlineAction(run: SyncExecutor["run"]): CompiledAction {
  return { secretNames: [], executor: { async: false, run } };
}

/** An action that names no secret and runs asynchronously, aborted and settled as a timeout after `timeoutMs`. */
export function timedAction(timeoutMs: number | undefined, run: AsyncExecutor["run"]): CompiledAction {
  return { secretNames: [], executor: { async: true, timeoutMs, run } };
}
