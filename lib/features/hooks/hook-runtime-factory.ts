/**
 * One configured hook runtime per run: the operator's code-execution switch and sandbox
 * (lib/platform/security/code-execution.ts), the outbound settings, the kill switch, and the run's ports.
 * Used by the worker, the hook test endpoint and the bridge.
 */
import type { Db } from "@/db/client";
import { insertHookInvocations } from "@/db/queries/hook-invocations";
import { listRecentToolCalls } from "@/db/queries/run-events";
import type { EventActor, HookEvent } from "@/lib/core/hooks/event";
import type { LedgerActor } from "@/db/schema";
import type { LedgerEntry } from "@/lib/core/hooks/ledger";
import { columnsOf } from "@/lib/core/null-fields";
import { createMemoryRateLimitPort, type ApprovalPort, type NoticePort, type SessionHistoryPort, type ToolPort } from "@/lib/core/hooks/ports";
import { createHookRuntime, type HookRuntime } from "@/lib/core/hooks/runtime";
import { logger } from "@/lib/platform/logger";
import { storeSecretPort } from "@/lib/features/secrets/secret-port";
import { getConfig, type Config } from "@/lib/platform/config/config";
import { serverShellPolicy } from "@/lib/platform/security/code-execution";
import { serverOutboundConfig } from "@/lib/platform/security/server-outbound";
import { killSwitchOn } from "./kill-switch";
import { databaseRateLimits } from "./rate-limit-leases";
import { recordDispatch, recordHookLedger } from "./hook-metrics";
import { operatorCodeHooks } from "./operator-code-hooks";

/** trustFromConfig's answer for each configuration read (a new one after resetConfig): every bridged call makes a runtime. */
const trustByConfig = new WeakMap<Config, ReturnType<typeof readTrust>>();

/** What the operator's configuration lets hooks do, as the hook runtime takes it. */
export function trustFromConfig(config: Config = getConfig()) {
  let trust = trustByConfig.get(config);
  if (!trust) trustByConfig.set(config, (trust = readTrust(config)));
  return trust;
}

function readTrust(config: Config) {
  const shell = serverShellPolicy(config);
  const outbound = serverOutboundConfig(config);
  return {
    allowCodeExecution: shell.refusal === undefined,
    shellLauncher: shell.launcher,
    outbound: outbound.policy,
    allowHosts: outbound.webhookOnlyHosts,
    slackBaseUrl: config.HOOKPLANE_SLACK_BASE_URL,
    discordBaseUrl: config.HOOKPLANE_DISCORD_BASE_URL,
    // The operating-system variables and the HOOKPLANE_HOOK_ENV_PASSTHROUGH names, read once.
    commandBaseEnv: Object.freeze({ ...config.commandEnvironment }) as Record<string, string>,
  };
}

/** The ledger rows of one dispatch, in the run's project (`projectId`), whose ledger lists them. */
export function ledgerRows(entries: readonly LedgerEntry[], event: HookEvent, eventSeq: number | undefined, projectId: string) {
  const actor = ledgerActor(event.actor);
  return entries.map((e) => ({
    projectId,
    runId: event.runId,
    eventSeq: eventSeq ?? null,
    event: e.event,
    hookKey: e.hookId,
    ...columnsOf(e, ["hookVersion", "scope", "matched"]),
    skipReason: e.matched ? null : (e.reason ?? null),
    ...columnsOf(e, [
      "verdict", "reason", "mode", "action", "failed", "timedOut", "ignored",
      "approval", "modification", "exitCode", "stdout", "stderr", "output", "durationMs",
    ]),
    actorKey: event.actor?.key ?? null,
    actor,
  }));
}

/**
 * The person on a bridged session's ledger rows, as the hooks saw them: hashed with the row, so the
 * ledger names who acted (and through which of their agents) after the run is gone.
 */
function ledgerActor(actor: EventActor | undefined): LedgerActor | null {
  if (!actor) return null;
  const { key: _key, email: _email, ...rest } = actor;
  return rest;
}

export interface RunRuntimeDeps {
  db: Db;
  /** The run's project: its secrets, and the project of its ledger rows. */
  projectId: string;
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

/** Session rules read the run's earlier tool calls from its stored events. */
function databaseHistory(db: Db): SessionHistoryPort {
  return {
    async recentCalls({ runId, sinceMs, limit }) {
      const rows = await listRecentToolCalls(db, { runId, since: new Date(sinceMs), limit });
      return rows.map((row) => ({ toolName: String(row.data.toolName ?? ""), toolInput: row.data.toolInput, ts: row.ts.getTime() }));
    },
  };
}

/**
 * A run's hook runtime. Its dispatches and ledger rows are counted in the metrics
 * (run-metrics.ts) when they belong to a run; a hook trial (persistLedger false) is not.
 */
export function createRunHookRuntime(deps: RunRuntimeDeps): HookRuntime {
  const trust = trustFromConfig();
  // Named one by one, not spread: on Node 20's V8 each member after a leading spread costs about
  // a microsecond (the clone's map has no transitions to reuse), and a bridged call builds a runtime.
  const runtime = createHookRuntime({
    allowCodeExecution: trust.allowCodeExecution,
    shellLauncher: trust.shellLauncher,
    outbound: trust.outbound,
    allowHosts: trust.allowHosts,
    slackBaseUrl: trust.slackBaseUrl,
    discordBaseUrl: trust.discordBaseUrl,
    commandBaseEnv: trust.commandBaseEnv,
    approvals: deps.approvals,
    // A trial (no ledger kept) counts on its own, from zero: it never uses up a real window.
    limits: !deps.ledger && deps.persistLedger === false ? createMemoryRateLimitPort() : databaseRateLimits(deps.db).port(deps.projectId),
    history: databaseHistory(deps.db),
    notices: deps.notices,
    tools: deps.tools,
    secrets: storeSecretPort(deps.db, deps.projectId),
    killSwitch: killSwitchOn,
    codeHooks: operatorCodeHooks(),
    logger: {
      warn: (message, details) => logger.warn(details ?? {}, message),
      error: (message, details) => logger.error(details ?? {}, message),
    },
    ledger: deps.ledger
      ? {
          record(entries, event) {
            recordHookLedger(entries);
            deps.ledger!(entries, event);
          },
        }
      : deps.persistLedger === false
        ? undefined
        : {
            record(entries, event) {
              recordHookLedger(entries);
              const write = insertHookInvocations(deps.db, { rows: ledgerRows(entries, event, event.seq ?? deps.eventSeq?.(), deps.projectId) }).catch((error) =>
                logger.error({ err: error }, "ledger write failed"),
              );
              deps.track?.(write);
            },
          },
  });
  if (!deps.ledger && deps.persistLedger === false) return runtime;
  return {
    async dispatch(hooks, event, opts) {
      const started = performance.now();
      const result = await runtime.dispatch(hooks, event, opts);
      recordDispatch(event, result, (performance.now() - started) / 1000);
      return result;
    },
  };
}
