/**
 * Telling an alert's targets: Slack, Discord and webhooks through the one notice client of the
 * hook actions (lib/core/hooks/notice-delivery.ts: the outbound guard, tokens bound to their hosts,
 * Slack's envelope), email through nodemailer and the configured SMTP server. Every text that
 * leaves passes the masker of every secret value the server knows, and so does every error kept in
 * the history. Each target's outcome is returned; nothing here throws.
 */
import nodemailer from "nodemailer";
import type { Db } from "@/db/client";
import type { AlertDelivery, AlertKind } from "@/db/schema";
import type { SafeFetchPolicy } from "@/lib/core/hooks/http-client";
import { sendPlainNotice, type PlainNotice } from "@/lib/core/hooks/notice-delivery";
import { isFailure } from "@/lib/core/hooks/executors/types";
import { createRedactor } from "@/lib/core/hooks/redact";
import { serverOutboundConfig } from "@/lib/platform/security/server-outbound";
import { sendOutbound } from "@/lib/core/outbound/outbound-request";
import { noticeHttp as configuredNoticeHttp, secretMasker } from "@/lib/features/approvals/approval-notices";
import type { ReachConfig } from "@/lib/features/approvals/reach-config";
import { storeSecretPort } from "@/lib/features/secrets/secret-port";
import type { SmtpConfig } from "./alert-config";
import { targetLabel, type AlertTargetInput } from "./alert-rules";
import type { AlertTransition } from "./alert-text";

/** How long one target may take, connection and answer included. */
const TARGET_TIMEOUT_MS = 15_000;

export interface AlertNotice {
  ruleId: string;
  ruleName: string;
  kind: AlertKind;
  agentName: string | null;
  transition: AlertTransition;
  value: number;
  threshold: number;
  line: string;
  url: string;
  at: Date;
}

export interface AlertNoticeDeps {
  reach: ReachConfig;
  smtp: SmtpConfig | undefined;
  /** Webhooks' guard (default: the admin's allow-list from the environment). */
  http?: SafeFetchPolicy;
  /** Slack's and Discord's guard (default: the allow-list plus their configured hosts). */
  noticeHttp?: SafeFetchPolicy;
}

/** The guard webhooks go through, as the hook runtime's webhook actions get it. */
export function webhookHttp(): SafeFetchPolicy {
  const outbound = serverOutboundConfig();
  return { transport: sendOutbound, outbound: outbound.policy, onlyHosts: outbound.webhookOnlyHosts, maxResponseBytes: 64 * 1024 };
}

function plainNotice(notice: AlertNotice): PlainNotice {
  return {
    line: notice.line,
    link: { url: notice.url, label: "Open the alert" },
    tone: notice.transition === "resolved" ? "success" : "failure",
    data: {
      alert: {
        id: notice.ruleId,
        name: notice.ruleName,
        kind: notice.kind,
        agent: notice.agentName ?? undefined,
        state: notice.transition === "resolved" ? "resolved" : "firing",
        reminder: notice.transition === "reminder",
        value: notice.value,
        threshold: notice.threshold,
        at: notice.at.toISOString(),
        url: notice.url,
      },
    },
  };
}

async function sendEmail(smtp: SmtpConfig | undefined, to: string[], notice: AlertNotice, mask: (text: string) => string): Promise<string | undefined> {
  if (!smtp) return "SMTP is not configured (HOOKPLANE_SMTP_HOST)";
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.auth && { auth: smtp.auth }),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: TARGET_TIMEOUT_MS,
  });
  try {
    const line = mask(notice.line);
    await transport.sendMail({
      from: smtp.from,
      to,
      subject: line,
      text: `${line}\n\nOpen the alert: ${notice.url}\n`,
      headers: { "X-Hookplane-Alert": notice.ruleId },
    });
    return undefined;
  } catch (error) {
    return `the SMTP server refused or could not be reached: ${(error as Error).message}`;
  } finally {
    transport.close();
  }
}

/**
 * Sends the notice to every target at once; each one's outcome, in the targets' order. Secrets the
 * targets name are read in the rule's project. `storeMask`: the secret masker the caller already
 * built for this notice (else one is built here).
 */
export async function sendAlertNotices(
  db: Db,
  projectId: string,
  targets: readonly AlertTargetInput[],
  notice: AlertNotice,
  deps: AlertNoticeDeps,
  storeMask?: (text: string) => string,
): Promise<AlertDelivery[]> {
  if (targets.length === 0) return [];
  storeMask ??= await secretMasker(db);
  const smtpMask = createRedactor(deps.smtp?.auth ? [deps.smtp.auth.pass] : []);
  const mask = (text: string) => smtpMask(storeMask(text));
  const secrets = storeSecretPort(db, projectId);
  const http = deps.http ?? webhookHttp();
  const noticeHttp = deps.noticeHttp ?? configuredNoticeHttp(deps.reach);
  const message = plainNotice(notice);
  return Promise.all(
    targets.map(async (target): Promise<AlertDelivery> => {
      const label = targetLabel(target);
      let error: string | undefined;
      try {
        if (target.type === "email") error = await sendEmail(deps.smtp, target.to, notice, mask);
        else {
          const outcome = await sendPlainNotice(target, message, {
            secrets,
            http,
            noticeHttp,
            slackBaseUrl: deps.reach.slackBaseUrl,
            discordBaseUrl: deps.reach.discordBaseUrl,
            mask,
            signal: AbortSignal.timeout(TARGET_TIMEOUT_MS),
          });
          if (isFailure(outcome)) error = outcome.failure;
        }
      } catch (thrown) {
        error = (thrown as Error).message || "the notice could not be sent";
      }
      return error === undefined ? { target: label, ok: true } : { target: label, ok: false, error: mask(error).slice(0, 500) };
    }),
  );
}
