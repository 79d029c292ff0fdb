/**
 * The runtime's public types: what goes into `createHookRuntime` and `dispatch`, and what comes out.
 */
import type { CodeHookRegistry } from "./code-hooks";
import type { LedgerEntry, HookVerdict } from "./ledger";
import type { ApprovalDecision, ApprovalPort, HookLogger, LedgerSink, SecretPort, ShellLauncher, ToolPort } from "./ports";
import type { HookSpec } from "./spec";

/** A stored hook as the runtime runs it: the parsed spec plus its config version (for the ledger). */
export type RuntimeHook = HookSpec & { version?: number };

export interface HookRuntimeOptions {
  approvals?: ApprovalPort;
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
  /** For webhook, slack and discord; default the global fetch. */
  fetch?: typeof fetch;
  /** Hosts webhooks may call (`hooks.example.com`, `*.example.com`); empty = any https host. */
  allowHosts?: readonly string[];
  /** Default https://slack.com/api */
  slackBaseUrl?: string;
  /** Default https://discord.com/api/v10 */
  discordBaseUrl?: string;
  /**
   * The environment commands start from. Default: PATH, HOME, LANG, LC_ALL, LC_CTYPE, TZ, TMPDIR,
   * USER, LOGNAME, SHELL, TERM of this process, nothing else (no DATABASE_URL, no API keys).
   */
  commandBaseEnv?: Record<string, string>;
  /** Cap on a command's stdout and stderr, and on a webhook response. Default 1 MiB. */
  maxOutputBytes?: number;
}

export interface DispatchOptions {
  /** The run's abort signal: async hooks stop (and fail under onFailure) when it aborts. */
  signal?: AbortSignal;
}

export interface DispatchResult {
  /** `block` stops the action (blocking events only); `skip` is Tailored AI's skipIf. */
  verdict: HookVerdict;
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
}
