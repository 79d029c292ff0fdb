import { expect, test } from "vitest";
import { alertConfigFromEnv } from "./alert-config";

test("evaluation every minute by default, at least a second, off with 0", () => {
  expect(alertConfigFromEnv({}).evaluationMs).toBe(60_000);
  expect(alertConfigFromEnv({ HOOKPLANE_ALERT_EVAL_MS: "2000" }).evaluationMs).toBe(2_000);
  expect(alertConfigFromEnv({ HOOKPLANE_ALERT_EVAL_MS: "10" }).evaluationMs).toBe(1_000);
  expect(alertConfigFromEnv({ HOOKPLANE_ALERT_EVAL_MS: "0" }).evaluationMs).toBe(0);
  expect(alertConfigFromEnv({ HOOKPLANE_ALERT_EVAL_MS: "soon" }).evaluationMs).toBe(60_000);
});

test("no SMTP without a host; ports, TLS, credentials and sender from the environment", () => {
  expect(alertConfigFromEnv({ HOOKPLANE_SMTP_PORT: "25" }).smtp).toBeUndefined();
  expect(alertConfigFromEnv({ HOOKPLANE_SMTP_HOST: "smtp.example.com" }).smtp).toEqual({ host: "smtp.example.com", port: 587, secure: false, from: "Hookplane <hookplane@localhost>" });
  expect(
    alertConfigFromEnv({
      HOOKPLANE_SMTP_HOST: "smtp.example.com",
      HOOKPLANE_SMTP_SECURE: "1",
      HOOKPLANE_SMTP_USER: "alerts",
      HOOKPLANE_SMTP_PASSWORD: "pw",
      HOOKPLANE_SMTP_FROM: "Ops <ops@example.com>",
    }).smtp,
  ).toEqual({ host: "smtp.example.com", port: 465, secure: true, auth: { user: "alerts", pass: "pw" }, from: "Ops <ops@example.com>" });
  // A user without a password (or the reverse) sends no credentials rather than half of them.
  expect(alertConfigFromEnv({ HOOKPLANE_SMTP_HOST: "smtp.example.com", HOOKPLANE_SMTP_USER: "alerts" }).smtp?.auth).toBeUndefined();
});
