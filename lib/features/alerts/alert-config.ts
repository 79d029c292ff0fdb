/**
 * The settings of alerts, read from the environment in this one function so the configuration
 * module (lib/platform/config/, issue 12) can take them over whole:
 * - `HOOKPLANE_ALERT_EVAL_MS` (default 60000, at least 1000): how often the rules are evaluated,
 *   once per period across every worker process; `0` turns evaluation off.
 * - `HOOKPLANE_SMTP_HOST`: the SMTP server email targets are sent through; unset, rules cannot
 *   have email targets (and stored ones report "SMTP is not configured").
 * - `HOOKPLANE_SMTP_PORT` (default 587, or 465 with `HOOKPLANE_SMTP_SECURE=1`),
 *   `HOOKPLANE_SMTP_SECURE` (`1`: TLS from the first byte; otherwise STARTTLS when the server
 *   offers it), `HOOKPLANE_SMTP_USER` and `HOOKPLANE_SMTP_PASSWORD` (both or neither),
 *   `HOOKPLANE_SMTP_FROM` (default `Hookplane <hookplane@localhost>`).
 */
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

const DEFAULT_EVALUATION_MS = 60_000;

export function alertConfigFromEnv(env: Record<string, string | undefined> = process.env): AlertConfig {
  const raw = env.HOOKPLANE_ALERT_EVAL_MS?.trim();
  const parsed = raw ? Number(raw) : DEFAULT_EVALUATION_MS;
  const evaluationMs = !Number.isFinite(parsed) || parsed < 0 ? DEFAULT_EVALUATION_MS : parsed === 0 ? 0 : Math.max(1_000, Math.round(parsed));
  const host = env.HOOKPLANE_SMTP_HOST?.trim();
  if (!host) return { evaluationMs, smtp: undefined };
  const secure = env.HOOKPLANE_SMTP_SECURE === "1" || env.HOOKPLANE_SMTP_SECURE === "true";
  const port = Number(env.HOOKPLANE_SMTP_PORT?.trim() || (secure ? 465 : 587));
  const user = env.HOOKPLANE_SMTP_USER?.trim();
  const pass = env.HOOKPLANE_SMTP_PASSWORD;
  return {
    evaluationMs,
    smtp: {
      host,
      port: Number.isInteger(port) && port > 0 && port < 65536 ? port : secure ? 465 : 587,
      secure,
      ...(user && pass ? { auth: { user, pass } } : {}),
      from: env.HOOKPLANE_SMTP_FROM?.trim() || "Hookplane <hookplane@localhost>",
    },
  };
}
