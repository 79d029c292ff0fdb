/**
 * One configured hook runtime per run: the operator's code-execution switch and sandbox
 * (lib/security/code-execution.ts), the outbound settings, the kill switch, and the run's ports.
 * Used by the worker, the hook test endpoint and the bridge.
 */
import type { Db } from "@/db/client";
import { insertHookInvocations } from "@/db/queries/hook-invocations";
import type { HookEvent } from "@/lib/hooks/event";
import type { LedgerEntry } from "@/lib/hooks/ledger";
import type { ApprovalPort, SecretPort, ToolPort } from "@/lib/hooks/ports";
import { createHookRuntime, type HookRuntime } from "@/lib/hooks/runtime";
import { logger } from "@/lib/logger";
import type { SecretBox } from "@/lib/secrets/secret-box";
import { serverShellPolicy } from "@/lib/security/code-execution";
import { getSecretBox, readSecretValue } from "@/lib/secrets/secret-store";
import { killSwitchOn } from "./kill-switch";
import { operatorCodeHooks } from "./operator-code-hooks";

export function trustFromEnv(env: NodeJS.ProcessEnv = process.env) {
  const shell = serverShellPolicy(env);
  return {
    allowCodeExecution: shell.refusal === undefined,
    shellLauncher: shell.launcher,
    allowHosts: (env.HOOKPLANE_WEBHOOK_ALLOW_HOSTS ?? "").split(",").map((s) => s.trim()).filter(Boolean),
    slackBaseUrl: env.HOOKPLANE_SLACK_BASE_URL,
    discordBaseUrl: env.HOOKPLANE_DISCORD_BASE_URL,
  };
}

export function ledgerRows(entries: readonly LedgerEntry[], event: HookEvent, eventSeq: number | undefined) {
  return entries.map((e) => ({
    runId: event.runId,
    eventSeq: eventSeq ?? null,
    event: e.event,
    hookKey: e.hookId,
    hookVersion: e.hookVersion ?? null,
    scope: e.scope,
    matched: e.matched,
    skipReason: e.matched ? null : (e.reason ?? null),
    verdict: e.verdict ?? null,
    reason: e.reason ?? null,
    mode: e.mode,
    action: e.action,
    failed: e.failed,
    timedOut: e.timedOut,
    ignored: e.ignored,
    approval: e.approval ?? null,
    exitCode: e.exitCode ?? null,
    stdout: e.stdout ?? null,
    stderr: e.stderr ?? null,
    output: e.output ?? null,
    durationMs: e.durationMs,
  }));
}

/**
 * The secret store first, then `HOOKPLANE_SECRET_<NAME>` for operators who keep secrets in the
 * environment. Each name is read and decrypted at most once per runtime (one run); a failed read
 * is not cached, so the next hook tries again. A value the key cannot open throws, and the hook
 * fails with that message rather than running without its secret.
 */
export function storeSecretPort(db: Db, box: () => SecretBox = getSecretBox, env: Record<string, string | undefined> = process.env): SecretPort {
  const cache = new Map<string, Promise<string | undefined>>();
  return {
    get(name) {
      let value = cache.get(name);
      if (!value) {
        value = readSecretValue(db, box, { name }).then((stored) => stored ?? env[`HOOKPLANE_SECRET_${name}`]);
        value.catch(() => cache.delete(name));
        cache.set(name, value);
      }
      return value;
    },
  };
}

export interface RunRuntimeDeps {
  db: Db;
  approvals?: ApprovalPort;
  tools?: ToolPort;
  /** The seq of the event being dispatched, for the ledger rows. */
  eventSeq?: () => number | undefined;
  /** Collects ledger writes so the caller can await them before a checkpoint. */
  track?: (write: Promise<unknown>) => void;
  persistLedger?: boolean;
}

export function createRunHookRuntime(deps: RunRuntimeDeps): HookRuntime {
  const trust = trustFromEnv();
  return createHookRuntime({
    ...trust,
    approvals: deps.approvals,
    tools: deps.tools,
    secrets: storeSecretPort(deps.db),
    killSwitch: killSwitchOn,
    codeHooks: operatorCodeHooks(),
    logger: {
      warn: (message, details) => logger.warn(details ?? {}, message),
      error: (message, details) => logger.error(details ?? {}, message),
    },
    ledger:
      deps.persistLedger === false
        ? undefined
        : {
            record(entries, event) {
              const write = insertHookInvocations(deps.db, { rows: ledgerRows(entries, event, deps.eventSeq?.()) }).catch((error) =>
                logger.error({ err: error }, "ledger write failed"),
              );
              deps.track?.(write);
            },
          },
  });
}
