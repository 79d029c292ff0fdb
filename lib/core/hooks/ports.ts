/**
 * What the runtime needs from the outside world. The runtime knows nothing of the database, the
 * dashboard or the tool registry: the app implements these ports and tests use small fakes.
 */
import type { LedgerEntry } from "./ledger";
import type { HookEvent } from "./event";

// The approval port has its own module (the ledger's rows carry its decisions, and the ledger is a
// port's argument here): its names stay importable from the ports.
export { isPending } from "./approval-port";
export type { ApprovalAnswer, ApprovalDecision, ApprovalPending, ApprovalPort, ApprovalRequest, OnTimeout, SettledApprovalStatus } from "./approval-port";

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
  /** Whether running the call again after a crash is harmless (the tool only reads). Default: no. */
  retrySafe?(name: string, args: Record<string, unknown>): boolean;
  /** The tools registered, when the port can say (Tailored AI skips a hook naming none of them). */
  list?(): readonly { name: string }[];
}

/** One shell step: `command` for `sh -c`, in the workspace `cwd`. */
export interface ShellStep {
  command: string;
  cwd: string | undefined;
}

/**
 * How a shell step is started: the program and arguments that end in `sh -c <command>`. The app
 * gives the runtime its sandbox (lib/platform/security/shell-sandbox.ts); the default is a plain `sh -c`.
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

/** A decrypted secret and the destinations its owner lets it go to. */
export interface SecretValue {
  value: string;
  /**
   * Hosts a request carrying the value may go to (`api.example.com`, `*.slack.com`); empty: none,
   * the value can reach only a command hook's environment.
   */
  hosts: readonly string[];
}

/**
 * Decrypted secrets by name; asked only for the names a hook references. A bare string is a value
 * bound to no host.
 */
export interface SecretPort {
  get(name: string): Promise<SecretValue | string | undefined> | SecretValue | string | undefined;
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

/** Approve and deny links of one approval for one recipient (`slack:#ops`, `user:alice@example.com`). */
export interface DecisionLinkSet {
  recipient: string;
  /** Who the links are for, as a person reads it (`alice@example.com`, `#ops`). */
  label: string;
  /**
   * `url`: the decision link (its page decides as the recipient). `buttonValue`: what an
   * interactive Slack button carries, which decides only inside a request Slack signed and opens
   * no page: a button's value is readable by everyone in the channel.
   */
  approve: { url: string; buttonValue: string };
  deny: { url: string; buttonValue: string };
}

/** What a notice about an approval may carry besides the event: links back and decision links. */
export interface ApprovalNoticeInfo {
  /** The approval in the dashboard. */
  approvalUrl: string;
  /** One set for the notice's recipient, or (`perApprover`) one per person who may decide. */
  links: DecisionLinkSet[];
  /** The people who may decide when the approval names them (a Slack member id to mention them by). */
  approvers: { label: string; slackUserId?: string }[];
  /** The approval names approvers: a link for a channel would be refused, so notices mention them. */
  restricted: boolean;
  /**
   * The value of an interactive Slack message's "Edit & approve" button, when the call's input
   * can be rewritten before approving: a tool call whose agent applies a rewritten input and whose
   * input holds no stored secret (the editor would show it). Absent otherwise: no button.
   */
  editButtonValue?: string;
}

/** A chat message posted about an approval, kept so it can say how the approval ended. */
export interface PostedApprovalNotice {
  approvalId: string;
  service: "slack" | "discord";
  channel: string;
  messageId: string;
  tokenSecret: string;
  hookId: string;
}

/**
 * What notices (Slack, Discord, webhook) need from the app: where the dashboard is, the secret
 * values to mask in what leaves, decision links for approvals, and where posted messages are kept.
 * Without it notices still go out, plainer: no links, only the hook's own secrets masked.
 */
export interface NoticePort {
  /** The dashboard's public base URL (HOOKPLANE_PUBLIC_URL), no trailing slash. */
  publicUrl: string;
  /** Hides every secret value the store holds, in any text about to leave. */
  masker(): Promise<(text: string) => string>;
  /** Links for a notice about `approvalId` sent to `recipient`; undefined when the approval is gone. */
  /** `editButton`: an interactive Slack message asks, so `editButtonValue` is worked out (it costs a look at the run and the secrets). */
  approvalNotice(approvalId: string, recipient: string, options: { perApprover: boolean; editButton?: boolean }): Promise<ApprovalNoticeInfo | undefined>;
  /** Keeps a posted message so the one reaction to the approval's settlement can update it. */
  posted(notice: PostedApprovalNotice): Promise<void>;
  /** Slack buttons are interactive (an endpoint verifies their callbacks); otherwise they open the links. */
  slackInteractive: boolean;
}

/**
 * Counts the calls a `limit` hook lets through, by key, in a sliding window. `take` lets the call
 * through (and counts it) when fewer than `max` were let through in the last `windowMs`; either
 * way it says how many were (including this one when it went through).
 */
/** A call the session made before, as the session rules (lib/core/detectors/session) read it. */
export interface PastCall {
  toolName: string;
  toolInput: unknown;
  /** Epoch milliseconds. */
  ts: number;
}

/** What the session did before: its last tool calls (tool.pre), newest first. */
export interface SessionHistoryPort {
  recentCalls(request: { runId: string; sinceMs: number; limit: number }, signal?: AbortSignal): Promise<PastCall[]>;
}

export interface RateLimitPort {
  take(request: { key: string; max: number; windowMs: number }, signal?: AbortSignal): Promise<RateLimitTake>;
  /**
   * The same take answered at once when this process can (tokens it already holds), else
   * undefined and `take` asks: a `limit` hook then runs in step with the chain, with no timer.
   */
  takeHeld?(request: { key: string; max: number; windowMs: number }): RateLimitTake | undefined;
  /**
   * Gives back one call this key let through (`taken`, the take's answer) that did not go through
   * after all (a later hook of the chain blocked it): a limit counts the calls that went through.
   * Best effort, never awaited.
   */
  release?(request: { key: string; max: number; windowMs: number }, taken: RateLimitTake): void;
}

/** A `limit` hook's token spent on a call, named by the rate limit port's request (plain JSON). */
export interface SpentToken {
  key: string;
  max: number;
  windowMs: number;
}

export interface RateLimitTake {
  allowed: boolean;
  count: number;
  /** The tokens this process held that the call spent (a lease), when it spent one: where it goes back. */
  lease?: string;
}

/**
 * A rate limit port in this process's memory: for a hook trial (it counts from zero, on its own)
 * and for tests. The web processes share the database's (lib/features/runs/rate-limits.ts).
 */
export function createMemoryRateLimitPort(now: () => number = Date.now): RateLimitPort {
  const hits = new Map<string, number[]>();
  return {
    async take({ key, max, windowMs }) {
      const since = now() - windowMs;
      const kept = (hits.get(key) ?? []).filter((at) => at > since);
      const allowed = kept.length < max;
      if (allowed) kept.push(now());
      hits.set(key, kept);
      return { allowed, count: kept.length };
    },
    release({ key }) {
      hits.get(key)?.pop();
    },
  };
}
