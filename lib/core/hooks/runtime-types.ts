/**
 * The runtime's public types: what goes into `createHookRuntime` and `dispatch`, and what comes out.
 */
import type { CodeHookRegistry } from "./code-hooks";
import type { LedgerEntry, HookVerdict } from "./ledger";
import type { OutboundPolicy } from "@/lib/core/outbound/outbound-guard";
import type { OutboundTransport } from "@/lib/core/outbound/outbound-request";
import type { ApprovalDecision, ApprovalPort, HookLogger, LedgerSink, NoticePort, RateLimitPort, SecretPort, SessionHistoryPort, SpentToken, ShellLauncher, ToolPort } from "./ports";
import type { HookSpec } from "./spec";
import type { OutputRedaction } from "./output-redaction";

/** A stored hook as the runtime runs it: the parsed spec plus its config version (for the ledger). */
export type RuntimeHook = HookSpec & { version?: number };

export interface HookRuntimeOptions {
  approvals?: ApprovalPort;
  /** Where `limit` hooks count (without it they fail under their onFailure). */
  limits?: RateLimitPort;
  /** What a session did before, for session rules (without it they fail under their onFailure). */
  history?: SessionHistoryPort;
  tools?: ToolPort;
  secrets?: SecretPort;
  ledger?: LedgerSink;
  codeHooks?: CodeHookRegistry;
  logger?: HookLogger;
  /** Epoch milliseconds; injectable for tests. Default Date.now. */
  now?: () => number;
  /** Checked on every dispatch: true disables every hook at once, without a restart. */
  killSwitch?: () => boolean;
  /**
   * The one trust switch (HOOKPLANE_ALLOW_CODE_EXECUTION on the server): without it, hooks that
   * run code (`command`, `code`, a `tool` action naming the shell: trust.ts) fail with the reason
   * and start nothing. Default off.
   */
  allowCodeExecution?: boolean;
  /** How `command` hooks start their shell; default a plain `sh -c` (the server passes its sandbox). */
  shellLauncher?: ShellLauncher;
  /**
   * Where webhooks and notices may go: the admin's allow-list of hosts that may be private or
   * loopback (lib/core/outbound/outbound-config.ts reads it). Default: public hosts only.
   */
  outbound?: OutboundPolicy;
  /** Sends one guarded request; default lib/core/outbound's sendOutbound. Tests may replace the network. */
  transport?: OutboundTransport;
  /** When non-empty, the only hosts webhooks may call (the older HOOKPLANE_WEBHOOK_ALLOW_HOSTS). */
  allowHosts?: readonly string[];
  /** Default https://slack.com/api. Operator configuration: its host passes the guard even if private. */
  slackBaseUrl?: string;
  /** Default https://discord.com/api/v10. Operator configuration, like slackBaseUrl. */
  discordBaseUrl?: string;
  /** Dashboard links, decision links and secret masking for notices (the app's NoticePort). */
  notices?: NoticePort;
  /**
   * The environment commands start from. Default: PATH, HOME, LANG, LC_ALL, LC_CTYPE, TZ, TMPDIR,
   * USER, LOGNAME, SHELL, TERM of `environment`, and the `passEnv` names, nothing else (no
   * DATABASE_URL, no API keys). The server gives it whole (lib/platform/config: commandEnvironment).
   */
  commandBaseEnv?: Record<string, string>;
  /**
   * The host environment `commandBaseEnv`'s default picks from; the core never reads the process's
   * own. Default: none (commands get only a PATH).
   */
  environment?: Readonly<Record<string, string | undefined>>;
  /**
   * Names of `environment`'s variables every command hook also gets (the admin's
   * `HOOKPLANE_HOOK_ENV_PASSTHROUGH`): herdctl, Loom and Tailored AI pass their whole environment,
   * Hookplane only what is named here (dialect-contracts.ts).
   */
  passEnv?: readonly string[];
  /** Cap on a command's stdout and stderr, and on a webhook response. Default 1 MiB. */
  maxOutputBytes?: number;
}

/**
 * Where a dispatch stands, as plain JSON: the hook it is at, and what the hooks before it said for
 * the model (their ledger rows are already written).
 */
export interface HookProgress {
  hookId: string;
  context?: string[];
  outputs?: string[];
  reminders?: string[];
  /** The call as the hooks before it left it (modify hooks, an approver's edit). */
  toolInput?: Record<string, unknown>;
  toolOutput?: { value: unknown };
  redaction?: OutputRedaction;
  modifiedBy?: string[];
  askUser?: DispatchResult["askUser"];
  /**
   * What the hooks before it spent on letting the call through (a limit's token): a resumed
   * dispatch gives it back if the call does not go through after all (denied, timed out to a
   * deny, abandoned), so a limit counts the calls that went through here too.
   */
  spent?: SpentToken[];
}

/** What a hook that started an outside effect and never settled is recorded as (at most once). */
export const INTERRUPTED_HOOK = "interrupted: the previous attempt may or may not have completed";

export interface DispatchOptions {
  /** The run's abort signal: async hooks stop (and fail under onFailure) when it aborts. */
  signal?: AbortSignal;
  /** Continue a dispatch that suspended: from its waiting hook, with what the hooks before it said. */
  resume?: SuspendPoint;
  /**
   * With `resume`: nobody will wait for that approval any more (the run ended, the caller left).
   * The waiting hook's ledger row says so and the rest of the chain does not run.
   */
  abandon?: string;
  /**
   * Awaited before a hook starts an effect outside the process (a `tool` or `command` action),
   * once the ledger rows of the hooks before it are handed to the sink: the caller stores `point`
   * durably, so a dispatch cut short by a crash knows that this action may have run. If it
   * rejects, the action does not start and fails under its onFailure.
   */
  beforeSideEffect?: (point: HookProgress) => Promise<void>;
  /**
   * Continue a dispatch cut short after `beforeSideEffect(point)`: the hooks before it are not run
   * again, and that hook is recorded as interrupted (a failure under its onFailure) instead of
   * running twice, unless its action is safe to retry (a `tool` action of a read-only tool).
   */
  interrupted?: HookProgress;
}

/**
 * Where a dispatch stopped to wait for a person, as plain JSON: the loop keeps it in its
 * checkpoint and hands it back as `resume`. The hooks before the waiting one already ran and are
 * in the ledger; what they said for the model is carried here.
 */
export interface SuspendPoint extends HookProgress {
  approvalId: string;
}

export interface DispatchResult {
  /**
   * `block` stops the action (blocking events only); `skip` is Tailored AI's skipIf; `suspend`
   * says a hook waits for a person: the caller parks and dispatches again with `resume`.
   */
  verdict: HookVerdict | "suspend";
  /** Set with the `suspend` verdict; `abandoned` says the wait ended with nobody deciding. */
  suspended?: SuspendPoint & { abandoned?: string };
  reason?: string;
  blockedBy?: string;
  /** Injected context texts, in order: on model.pre they go into this very call. */
  context: string[];
  /** Hook outputs joined (tool hook outputs; a scheduled run prepends them to the prompt). */
  output?: string;
  /** Everything the model should read on its next call: blocks, outputs, injected context. */
  reminders: string[];
  ledger: LedgerEntry[];
  /** The approval that decided this dispatch, if any. */
  approval?: ApprovalDecision & { hookId: string };
  /**
   * Set when hooks changed the tool input (tool.pre: a `modify` hook, an approver's edit, a
   * command's `updatedInput`): the whole input the call must run with. An agent that cannot run
   * the call with it must block the call, never run it unmodified.
   */
  toolInput?: Record<string, unknown>;
  /** Set when hooks changed the tool output (tool.post): what the model must see instead. */
  toolOutput?: { value: unknown };
  /**
   * Set when hooks redacted the tool output (tool.post), enforced or in shadow mode: what the
   * record of the event keeps instead of the output (output-redaction.ts).
   */
  redaction?: OutputRedaction;
  /** The hooks that changed the call, in chain order. */
  modifiedBy?: string[];
  /** A hook (`ask`) wants the agent's own user to confirm the call; an agent that cannot ask blocks it. */
  askUser?: { hookId: string; reason: string };
  /**
   * Set on a call the chain let through whose hooks spent something on it (a `limit`'s token):
   * the caller gives it back when the call does not go through after all (the agent cannot apply
   * what the hooks changed, or the call is decided again). Once; later calls do nothing.
   */
  giveBack?: () => void;
}
