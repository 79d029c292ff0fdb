/**
 * The settings of alerts, from the configuration module (lib/platform/config/config-schema.ts
 * documents each variable): how often rules are evaluated, and the SMTP server email targets go
 * through (none: rules cannot have email targets, and stored ones report "SMTP is not configured").
 */
import { getConfig, type Config } from "@/lib/platform/config/config";

export interface SmtpConfig {
  host: string;
  port: number;
  secure: boolean;
  auth?: { user: string; pass: string };
  from: string;
}

export interface AlertConfig {
  /** 0: not evaluated by this process. */
  evaluationMs: number;
  smtp: SmtpConfig | undefined;
}

type AlertVariables = Pick<
  Config,
  | "HOOKPLANE_ALERT_EVAL_MS"
  | "HOOKPLANE_SMTP_HOST"
  | "HOOKPLANE_SMTP_PORT"
  | "HOOKPLANE_SMTP_SECURE"
  | "HOOKPLANE_SMTP_USER"
  | "HOOKPLANE_SMTP_PASSWORD"
  | "HOOKPLANE_SMTP_FROM"
>;

export function alertConfig(config: AlertVariables = getConfig()): AlertConfig {
  const raw = config.HOOKPLANE_ALERT_EVAL_MS;
  // A period under a second would evaluate every rule on every tick: one second is the floor.
  const evaluationMs = raw === 0 ? 0 : Math.max(1_000, raw);
  const host = config.HOOKPLANE_SMTP_HOST;
  if (!host) return { evaluationMs, smtp: undefined };
  const secure = config.HOOKPLANE_SMTP_SECURE;
  const user = config.HOOKPLANE_SMTP_USER;
  const pass = config.HOOKPLANE_SMTP_PASSWORD;
  return {
    evaluationMs,
    smtp: {
      host,
      port: config.HOOKPLANE_SMTP_PORT ?? (secure ? 465 : 587),
      secure,
      ...(user && pass ? { auth: { user, pass } } : {}),
      from: config.HOOKPLANE_SMTP_FROM,
    },
  };
}
