/**
 * What the runtime needs from the outside world. The runtime knows nothing of the database, the
 * dashboard or the tool registry: the app implements these ports and tests use small fakes.
 */
import type { LedgerEntry } from "./ledger";
import type { HookEvent } from "./event";

export type OnTimeout = "deny" | "allow" | "wait";

export interface ApprovalRequest {
  runId: string;
  hookId: string;
  toolName?: string;
  toolInput?: unknown;
  toolCallId?: string;
  timeoutMs: number;
  onTimeout: OnTimeout;
  message?: string;
}

export interface ApprovalDecision {
  decision: "approve" | "deny";
  decidedBy?: string;
  reason?: string;
  /** True when nobody decided in time and the onTimeout policy answered. Not a person's "no". */
  timedOut: boolean;
}

/**
 * Asks a person. The port owns the durable wait (a row in the approval inbox, the dashboard, the
 * API) and applies `onTimeout`; the runtime also enforces `timeoutMs` itself in case a port never
 * answers. `signal` aborts when the run is cancelled.
 */
export interface ApprovalPort {
  request(req: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalDecision>;
}

export interface ToolCallOptions {
  /**
   * Extra environment of a process the tool starts (the shell): how template values reach a
   * command as data (shell-template.ts). Tools that start no process ignore it.
   */
  env?: Record<string, string>;
}

export interface ToolPort {
  call(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    options?: ToolCallOptions,
  ): Promise<{ output: string; isError?: boolean }>;
}

/** One shell step: `command` for `sh -c`, in the workspace `cwd`. */
export interface ShellStep {
  command: string;
  cwd: string | undefined;
}

/**
 * How a shell step is started: the program and arguments that end in `sh -c <command>`. The app
 * gives the runtime its sandbox (lib/security/shell-sandbox.ts); the default is a plain `sh -c`.
 * May throw (no workspace for a sandboxed step): the step then fails with that message.
 */
export type ShellLauncher = (step: ShellStep) => ShellLaunch;

/** What to spawn; `uid`/`gid` make Node itself switch users (when nothing in `args` does). */
export interface ShellLaunch {
  file: string;
  args: string[];
  uid?: number;
  gid?: number;
}

/** `sh -c command`: no sandbox, for tests and embedders that bring their own isolation. */
export const plainShell: ShellLauncher = (step) => ({ file: "sh", args: ["-c", step.command] });

/** Decrypted secret values by name; asked only for the names a hook references. */
export interface SecretPort {
  get(name: string): Promise<string | undefined> | string | undefined;
}

/** Receives the ledger rows of one dispatch at once (one insert per dispatch, not per hook). */
export interface LedgerSink {
  record(entries: readonly LedgerEntry[], event: HookEvent): void | Promise<void>;
}

export interface HookLogger {
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

export const silentLogger: HookLogger = { warn() {}, error() {} };
