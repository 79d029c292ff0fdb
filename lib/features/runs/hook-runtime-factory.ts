/**
 * One configured hook runtime per run: the operator's code-execution switch and sandbox
 * (lib/platform/security/code-execution.ts), the outbound settings, the kill switch, and the run's ports.
 * Used by the worker, the hook test endpoint and the bridge.
 */
import type { Db } from "@/db/client";
import { insertHookInvocations } from "@/db/queries/hook-invocations";
import type { HookEvent } from "@/lib/core/hooks/event";
import type { LedgerEntry } from "@/lib/core/hooks/ledger";
import type { ApprovalPort, NoticePort, SecretPort, SecretValue, ToolPort } from "@/lib/core/hooks/ports";
import { createHookRuntime, type HookRuntime } from "@/lib/core/hooks/runtime";
import { logger } from "@/lib/platform/logger";
import { outboundConfigFromEnv } from "@/lib/core/outbound/outbound-config";
import type { SecretBox } from "@/lib/features/secrets/secret-box";
import { getSecretBox, readSecret, secretHostSchema, splitHosts } from "@/lib/features/secrets/secret-store";
import { serverShellPolicy } from "@/lib/platform/security/code-execution";
import { killSwitchOn } from "./kill-switch";
import { operatorCodeHooks } from "./operator-code-hooks";

export function trustFromEnv(env: NodeJS.ProcessEnv = process.env) {
  const shell = serverShellPolicy(env);
  const outbound = outboundConfigFromEnv(env);
  return {
    allowCodeExecution: shell.refusal === undefined,
    shellLauncher: shell.launcher,
    outbound: outbound.policy,
    allowHosts: outbound.webhookOnlyHosts,
    slackBaseUrl: env.HOOKPLANE_SLACK_BASE_URL,
    discordBaseUrl: env.HOOKPLANE_DISCORD_BASE_URL,
    passEnv: hookEnvPassthrough(env),
  };
}

/**
 * `HOOKPLANE_HOOK_ENV_PASSTHROUGH`: the server variables (comma-separated names) command hooks
 * also get. Only plain names count, and never Hookplane's own settings or the database URL.
 */
export function hookEnvPassthrough(env: NodeJS.ProcessEnv): string[] {
  return (env.HOOKPLANE_HOOK_ENV_PASSTHROUGH ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !name.startsWith("HOOKPLANE_") && name !== "DATABASE_URL");
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
 * environment, bound to the hosts of `HOOKPLANE_SECRET_<NAME>_HOSTS` (none without it: usable by
 * command hooks only). Each name is read and decrypted at most once per runtime (one run); a failed
 * read is not cached, so the next hook tries again. A value the key cannot open throws, and the
 * hook fails with that message rather than running without its secret.
 */
export function storeSecretPort(db: Db, box: () => SecretBox = getSecretBox, env: Record<string, string | undefined> = process.env): SecretPort {
  const cache = new Map<string, Promise<SecretValue | undefined>>();
  return {
    get(name) {
      let value = cache.get(name);
      if (!value) {
        value = readSecret(db, box, { name }).then((stored) => stored ?? envSecret(env, name));
        value.catch(() => cache.delete(name));
        cache.set(name, value);
      }
      return value;
    },
  };
}

function envSecret(env: Record<string, string | undefined>, name: string): SecretValue | undefined {
  const value = env[`HOOKPLANE_SECRET_${name}`];
  if (value === undefined) return undefined;
  // Only well-formed host names count: a bare `*` or a URL would undo the binding.
  const hosts = splitHosts(env[`HOOKPLANE_SECRET_${name}_HOSTS`] ?? "").flatMap((h) => {
    const parsed = secretHostSchema.safeParse(h);
    return parsed.success ? [parsed.data] : [];
  });
  return { value, hosts };
}

export interface RunRuntimeDeps {
  db: Db;
  approvals?: ApprovalPort;
  /** Dashboard and decision links, secret masking for notices. */
  notices?: NoticePort;
  tools?: ToolPort;
  /** The seq of the event being dispatched, for the ledger rows. */
  eventSeq?: () => number | undefined;
  /** Collects ledger writes so the caller can await them before a checkpoint. */
  track?: (write: Promise<unknown>) => void;
  persistLedger?: boolean;
  /** Takes the ledger rows of each dispatch instead of inserting them (a run session batches them). */
  ledger?: (entries: readonly LedgerEntry[], event: HookEvent) => void;
}

export function createRunHookRuntime(deps: RunRuntimeDeps): HookRuntime {
  const trust = trustFromEnv();
  return createHookRuntime({
    ...trust,
    approvals: deps.approvals,
    notices: deps.notices,
    tools: deps.tools,
    secrets: storeSecretPort(deps.db),
    killSwitch: killSwitchOn,
    codeHooks: operatorCodeHooks(),
    logger: {
      warn: (message, details) => logger.warn(details ?? {}, message),
      error: (message, details) => logger.error(details ?? {}, message),
    },
    ledger: deps.ledger
      ? { record: deps.ledger }
      : deps.persistLedger === false
        ? undefined
        : {
            record(entries, event) {
              const write = insertHookInvocations(deps.db, { rows: ledgerRows(entries, event, event.seq ?? deps.eventSeq?.()) }).catch((error) =>
                logger.error({ err: error }, "ledger write failed"),
              );
              deps.track?.(write);
            },
          },
  });
}
