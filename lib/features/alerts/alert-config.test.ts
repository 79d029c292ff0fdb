import { expect, test } from "vitest";
import { loadConfig } from "@/lib/platform/config/config";
import { alertConfig } from "./alert-config";

const from = (env: Record<string, string>) => alertConfig(loadConfig(env));

test("evaluation period: the default, a floor of one second, and 0 for off", () => {
  expect(from({}).evaluationMs).toBe(60_000);
  expect(from({ HOOKPLANE_ALERT_EVAL_MS: "2000" }).evaluationMs).toBe(2_000);
  expect(from({ HOOKPLANE_ALERT_EVAL_MS: "10" }).evaluationMs).toBe(1_000);
  expect(from({ HOOKPLANE_ALERT_EVAL_MS: "0" }).evaluationMs).toBe(0);
});

test("a bad value stops the start, naming the variable", () => {
  expect(() => loadConfig({ HOOKPLANE_ALERT_EVAL_MS: "soon" })).toThrow(/HOOKPLANE_ALERT_EVAL_MS: expected an integer ≥ 0, got "soon"/);
  expect(() => loadConfig({ HOOKPLANE_SMTP_HOST: "smtp.example.com", HOOKPLANE_SMTP_PORT: "smtp" })).toThrow(/HOOKPLANE_SMTP_PORT: expected a port number/);
  expect(() => loadConfig({ HOOKPLANE_SMTP_HOST: "smtp.example.com", HOOKPLANE_SMTP_USER: "alerts" })).toThrow(
    /HOOKPLANE_SMTP_PASSWORD: HOOKPLANE_SMTP_USER and HOOKPLANE_SMTP_PASSWORD go together/,
  );
});

test("SMTP: none without a host; ports by TLS mode; login only with both parts", () => {
  expect(from({ HOOKPLANE_SMTP_PORT: "25" }).smtp).toBeUndefined();
  expect(from({ HOOKPLANE_SMTP_HOST: "smtp.example.com" }).smtp).toEqual({ host: "smtp.example.com", port: 587, secure: false, from: "Hookplane <hookplane@localhost>" });
  expect(from({ HOOKPLANE_SMTP_HOST: "smtp.example.com", HOOKPLANE_SMTP_SECURE: "1" }).smtp?.port).toBe(465);
  expect(
    from({
      HOOKPLANE_SMTP_HOST: "smtp.example.com",
      HOOKPLANE_SMTP_PORT: "2525",
      HOOKPLANE_SMTP_USER: "alerts",
      HOOKPLANE_SMTP_PASSWORD: "pw",
      HOOKPLANE_SMTP_FROM: "Ops <ops@example.com>",
    }).smtp,
  ).toEqual({ host: "smtp.example.com", port: 2525, secure: false, auth: { user: "alerts", pass: "pw" }, from: "Ops <ops@example.com>" });
});
