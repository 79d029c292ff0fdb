/**
 * Alerts (issue 11, item 3): every kind fires on real data (real runs for failed, blocked, hook
 * failures and waiting approvals; cost from runs recorded through the query modules), a rule fires
 * once per cooldown, reminds after it and resolves once, with exactly the history rows and exactly
 * the notices the local Slack, Discord, webhook and SMTP servers receive; evaluators racing produce
 * one firing; the pg-boss schedule evaluates once per period across processes; the API refuses bad
 * rules at their path and every write from a viewer or an operator.
 */
import { setEnv } from "@/test/config-env";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { simpleParser, type ParsedMail } from "mailparser";
import PgBoss from "pg-boss";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, expect, test } from "vitest";
import { listAlertEvents } from "@/db/queries/alerts";
import { listApprovals } from "@/db/queries/approvals";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { listAudit } from "@/db/queries/audit";
import { createRun, finishRun } from "@/db/queries/runs";
import type { DbHandle } from "@/db/client";
import * as alertsRoute from "@/app/api/v1/alerts/route";
import * as alertRoute from "@/app/api/v1/alerts/[id]/route";
import * as alertEventsRoute from "@/app/api/v1/alerts/[id]/events/route";
import { callRoute } from "@/test/api-client";
import { json, startServer, type LocalServer, type RecordedRequest } from "@/lib/core/hooks/testing/fakes";
import { putSecretAudited } from "@/lib/features/secrets/secret-store";
import { forgetSecretBox, getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { reachConfig } from "@/lib/features/approvals/reach-config";
import { startRun } from "../runs/run-service";
import { addAgent, createRunHarness, operator, personIn, waitForRun, type RunHarness } from "@/test/run-harness";
import { addPerson, addToken } from "@/test/people";
import type { SmtpConfig } from "./alert-config";
import { evaluateAlerts } from "./alert-evaluator";
import type { AlertNoticeDeps } from "./alert-notices";
import { alertRuleSchema } from "./alert-rules";
import { startAlertEvaluation } from "./alert-schedule";
import { createAlertRuleAudited, updateAlertRuleAudited } from "./alert-service";

const PUBLIC = "https://hookplane.example.com";
const SMTP_PASSWORD = "smtp-pass-4c1d9e";
const HOOK_TOKEN = "hook-token-9b2f77e0";
const DEPLOY_KEY = "dk-live-7f3a9c2e51b8";
const admin = personIn("admin", undefined, "admin@example.com");
const MINUTE = 60_000;

let h: RunHarness;
let slack: LocalServer;
let discord: LocalServer;
let hooks: LocalServer;
let failingHook: LocalServer;
let model: LocalServer;
let smtpServer: SMTPServer;
let smtp: SmtpConfig;
const mails: ParsedMail[] = [];
const tokens = { admin: "", operator: "", viewer: "" };
let restoreEnv: () => void;

const deps = (): AlertNoticeDeps => ({ reach: reachConfig(), smtp });

beforeAll(async () => {
  slack = await startServer((_req, res) => json(res, 200, { ok: true, channel: "C0OPS", ts: "1700000000.000100" }));
  discord = await startServer((_req, res) => json(res, 200, { id: "998877", channel_id: "4242" }));
  hooks = await startServer((_req, res) => json(res, 200, {}));
  failingHook = await startServer((_req, res) => json(res, 500, { error: "down" }));
  // An OpenAI-compatible server that refuses every call: a run of an openai: agent fails.
  model = await startServer((_req, res) => json(res, 400, { error: { message: "model refused the request", type: "invalid_request_error" } }));
  smtpServer = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === "alerts" && auth.password === SMTP_PASSWORD) callback(null, { user: "alerts" });
      else callback(new Error("invalid credentials"));
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          mails.push(mail);
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => smtpServer.listen(0, "127.0.0.1", resolve));
  smtp = { host: "127.0.0.1", port: (smtpServer.server.address() as AddressInfo).port, secure: false, auth: { user: "alerts", pass: SMTP_PASSWORD }, from: "Hookplane <alerts@hookplane.example.com>" };

  const env = {
    HOOKPLANE_PUBLIC_URL: PUBLIC,
    HOOKPLANE_SLACK_BASE_URL: slack.url,
    HOOKPLANE_DISCORD_BASE_URL: discord.url,
    HOOKPLANE_ALLOW_PRIVATE_HOSTS: "127.0.0.1",
    HOOKPLANE_SECRET_KEY: randomBytes(32).toString("base64"),
    HOOKPLANE_SMTP_HOST: undefined,
    OPENAI_API_KEY: "sk-test-alerts",
    OPENAI_BASE_URL: `${model.url}/v1`,
  };
  restoreEnv = setEnv(env);
  forgetSecretBox();
  // Evaluation is driven by the tests (and, in its own test, by the pg-boss schedule).
  h = await createRunHarness({ approvalHoldMs: 150, alertEvaluationMs: 0 });
  const db = h.t.db;
  await putSecretAudited(db, getSecretBox(), admin, { name: "SLACK_BOT_TOKEN", value: "xoxb-alerts-slack-1", hosts: ["127.0.0.1"] });
  await putSecretAudited(db, getSecretBox(), admin, { name: "DISCORD_BOT_TOKEN", value: "discord-alerts-bot-2", hosts: ["127.0.0.1"] });
  await putSecretAudited(db, getSecretBox(), admin, { name: "HOOK_TOKEN", value: HOOK_TOKEN, hosts: ["127.0.0.1"] });
  await putSecretAudited(db, getSecretBox(), admin, { name: "DEPLOY_KEY", value: DEPLOY_KEY, hosts: [] });
  for (const role of ["admin", "operator", "viewer"] as const) {
    const user = await addPerson(db, { email: `${role}@example.com`, passwordHash: "unused", role });
    tokens[role] = (await addToken(db, { name: role, role, userId: user.id })).token;
  }
}, 60_000);

afterAll(async () => {
  await h.close();
  await Promise.all([slack.close(), discord.close(), hooks.close(), failingHook.close(), model.close()]);
  await new Promise<void>((resolve) => smtpServer.close(() => resolve()));
  restoreEnv();
  forgetSecretBox();
});

const writeTurn = (file: string) => ({ text: "writing", toolCalls: [{ name: "write_file", input: { path: file, content: "x" } }], usage: { inputTokens: 10, outputTokens: 2 } });

/** Rules are made as the API makes them (parsed, defaults applied), with the test's SMTP server. */
function rule(input: Record<string, unknown>) {
  return createAlertRuleAudited(h.t.db, admin, alertRuleSchema.parse({ cooldownMinutes: 10, ...input }), smtp);
}

/** The rule's history, oldest first, as stored. */
async function history(ruleId: string) {
  const rows = await listAlertEvents(h.t.db, { ruleId, limit: 100 });
  return rows.reverse().map(({ state, reminder, value, threshold, message, at, notified }) => ({ state, reminder, value, threshold, message, at, notified }));
}

async function finishedRun(agentName: string) {
  const run = await startRun(h.t.db, operator, { agent: agentName, prompt: "go" });
  return waitForRun(h.t, run.id, (r) => r.status === "finished");
}

/** A moment after everything recorded so far, so windows ending at `now` include it. */
const justAfter = () => new Date(Date.now() + 1_000);
const at = (base: Date, minutes: number) => new Date(base.getTime() + minutes * MINUTE);

test("failed runs: a real run that fails fires the rule", async () => {
  await addAgent(h.t, { name: "alert-fails", model: "openai:gpt-test" });
  const run = await finishedRun("alert-fails");
  expect(run.outcome).toBe("failed");
  const r = await rule({ name: "failing", kind: "runs_failed", agent: "alert-fails", windowMinutes: 60, threshold: 0 });
  const now = justAfter();
  await evaluateAlerts(h.t.db, deps(), now);
  expect(await history(r.id)).toEqual([
    { state: "firing", reminder: false, value: 1, threshold: 0, message: "Alert failing: failed runs of agent alert-fails 1 over the last 1 h is above 0", at: now, notified: [] },
  ]);
});

test("blocked runs: a real run whose write a hook blocks fires the rule", async () => {
  await addAgent(h.t, { name: "alert-blocked", tools: ["write_file"], script: [writeTurn("a.txt"), { text: "ok" }] }, [
    { id: "no-writes", event: "tool.pre", matcher: "write_file", action: { type: "block", reason: "no writes here" } },
  ]);
  expect((await finishedRun("alert-blocked")).blocked).toBe(true);
  const r = await rule({ name: "blocking", kind: "runs_blocked", agent: "alert-blocked", windowMinutes: 30, threshold: 0 });
  const now = justAfter();
  await evaluateAlerts(h.t.db, deps(), now);
  expect(await history(r.id)).toEqual([
    { state: "firing", reminder: false, value: 1, threshold: 0, message: "Alert blocking: blocked runs of agent alert-blocked 1 over the last 30 min is above 0", at: now, notified: [] },
  ]);
});

test("hook failures: a real run whose webhook hook errors fires the rule", async () => {
  await addAgent(h.t, { name: "alert-hook-errors", tools: ["write_file"], script: [writeTurn("b.txt"), writeTurn("c.txt"), { text: "ok" }] }, [
    { id: "audit-hook", event: "tool.pre", matcher: "write_file", onFailure: "continue", action: { type: "webhook", url: `${failingHook.url}/audit` } },
  ]);
  expect((await finishedRun("alert-hook-errors")).outcome).toBe("completed");
  const r = await rule({ name: "hooks-erroring", kind: "hook_failures", agent: "alert-hook-errors", windowMinutes: 60, threshold: 1 });
  const now = justAfter();
  await evaluateAlerts(h.t.db, deps(), now);
  expect(await history(r.id)).toEqual([
    { state: "firing", reminder: false, value: 2, threshold: 1, message: "Alert hooks-erroring: hook failures of agent alert-hook-errors 2 over the last 1 h is above 1", at: now, notified: [] },
  ]);
});

test("approvals waiting: a parked run's approval counts once it has waited longer than the wait", async () => {
  await addAgent(h.t, { name: "alert-waits", tools: ["write_file"], script: [writeTurn("d.txt"), { text: "ok" }] }, [
    { id: "ask", event: "tool.pre", matcher: "write_file", action: { type: "approve", timeoutMs: 3_600_000, onTimeout: "deny" } },
  ]);
  const run = await startRun(h.t.db, operator, { agent: "alert-waits", prompt: "go" });
  await waitForRun(h.t, run.id, (r) => r.status === "waiting_approval");
  expect((await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 10 })).filter((a) => a.runId === run.id)).toHaveLength(1);
  const r = await rule({ name: "slow-deciders", kind: "approvals_waiting", agent: "alert-waits", waitMinutes: 15, threshold: 0 });
  const now = justAfter();
  await evaluateAlerts(h.t.db, deps(), now);
  expect(await history(r.id)).toEqual([]);
  await evaluateAlerts(h.t.db, deps(), at(now, 16));
  expect(await history(r.id)).toEqual([
    { state: "firing", reminder: false, value: 1, threshold: 0, message: "Alert slow-deciders: approvals of agent alert-waits waiting longer than 15 min 1 is above 0", at: at(now, 16), notified: [] },
  ]);
});

async function spentRun(agentId: string, costUsd: number) {
  const run = await createRun(h.t.db, { projectId: DEFAULT_PROJECT_ID, agentId, prompt: "spent", source: "test" });
  await finishRun(h.t.db, { id: run.id, outcome: "completed", totals: { inputTokens: 1000, outputTokens: 100, cachedTokens: 0, costUsd } });
  return run;
}

test("cost: an agent's spend over the window, and the total", async () => {
  const agent = await addAgent(h.t, { name: "alert-spender" });
  await spentRun(agent.id, 7.5);
  await spentRun(agent.id, 4.9);
  const mine = await rule({ name: "ops-spend", kind: "cost", agent: "alert-spender", windowMinutes: 60, threshold: 10 });
  const total = await rule({ name: "all-spend", kind: "cost", windowMinutes: 1440, threshold: 12 });
  const now = justAfter();
  await evaluateAlerts(h.t.db, deps(), now);
  expect(await history(mine.id)).toEqual([
    { state: "firing", reminder: false, value: 12.4, threshold: 10, message: "Alert ops-spend: cost of agent alert-spender $12.40 over the last 1 h is above $10", at: now, notified: [] },
  ]);
  const [fired] = await history(total.id);
  expect(fired.value).toBeGreaterThanOrEqual(12.4);
  expect(fired.message).toMatch(/^Alert all-spend: total cost \$\d+\.\d\d over the last 1 d is above \$12$/);
});

const bodyOf = (req: RecordedRequest) => JSON.parse(req.body) as Record<string, unknown>;

test("fires once per cooldown, reminds once after it, resolves once: exact history and exactly these notices", async () => {
  await addAgent(h.t, { name: "alert-notify", tools: ["write_file"], script: [writeTurn("e.txt"), { text: "ok" }] }, [
    { id: "no-writes", event: "tool.pre", matcher: "write_file", action: { type: "block", reason: "no writes here" } },
  ]);
  await finishedRun("alert-notify");
  const r = await rule({
    name: "blocked-writes",
    kind: "runs_blocked",
    agent: "alert-notify",
    windowMinutes: 60,
    threshold: 0,
    cooldownMinutes: 10,
    targets: [
      { type: "slack", channel: "C0OPS", tokenSecret: "SLACK_BOT_TOKEN" },
      { type: "discord", channel: "4242", tokenSecret: "DISCORD_BOT_TOKEN" },
      { type: "webhook", url: `${hooks.url}/alerts`, headers: { authorization: "Bearer ${secret:HOOK_TOKEN}" } },
      { type: "email", to: ["ops@example.com", "oncall@example.com"] },
    ],
  });
  const t0 = justAfter();
  const before = { slack: slack.requests.length, discord: discord.requests.length, hooks: hooks.requests.length, mails: mails.length };
  for (const minutes of [0, 1, 9, 11, 12, 62, 63, 80]) await evaluateAlerts(h.t.db, deps(), at(t0, minutes));

  const link = `${PUBLIC}/alerts/${r.id}`;
  const firing = "Alert blocked-writes: blocked runs of agent alert-notify 1 over the last 1 h is above 0";
  const reminder = "Still firing blocked-writes: blocked runs of agent alert-notify 1 over the last 1 h is above 0";
  const resolved = "Resolved blocked-writes: blocked runs of agent alert-notify 0 over the last 1 h is back at or below 0";
  const delivered = ["slack:C0OPS", "discord:4242", "webhook:127.0.0.1", "email:ops@example.com,oncall@example.com"].map((target) => ({ target, ok: true }));
  expect(await history(r.id)).toEqual([
    { state: "firing", reminder: false, value: 1, threshold: 0, message: firing, at: t0, notified: delivered },
    { state: "firing", reminder: true, value: 1, threshold: 0, message: reminder, at: at(t0, 11), notified: delivered },
    { state: "resolved", reminder: false, value: 0, threshold: 0, message: resolved, at: at(t0, 62), notified: delivered },
  ]);

  const slackPosts = slack.requests.slice(before.slack);
  expect(slackPosts.map((p) => [p.url, p.headers.authorization, bodyOf(p).channel, bodyOf(p).text])).toEqual([
    ["/chat.postMessage", "Bearer xoxb-alerts-slack-1", "C0OPS", firing],
    ["/chat.postMessage", "Bearer xoxb-alerts-slack-1", "C0OPS", reminder],
    ["/chat.postMessage", "Bearer xoxb-alerts-slack-1", "C0OPS", resolved],
  ]);
  expect(JSON.stringify(bodyOf(slackPosts[0]).blocks)).toContain(`<${link}|Open the alert>`);
  const discordPosts = discord.requests.slice(before.discord);
  expect(discordPosts.map((p) => [p.url, p.headers.authorization, bodyOf(p).content])).toEqual([
    ["/channels/4242/messages", "Bot discord-alerts-bot-2", `${firing}\nOpen the alert: <${link}>`],
    ["/channels/4242/messages", "Bot discord-alerts-bot-2", `${reminder}\nOpen the alert: <${link}>`],
    ["/channels/4242/messages", "Bot discord-alerts-bot-2", `${resolved}\nOpen the alert: <${link}>`],
  ]);
  const webhookPosts = hooks.requests.slice(before.hooks);
  expect(webhookPosts.map((p) => [p.url, p.headers.authorization])).toEqual(Array(3).fill(["/alerts", `Bearer ${HOOK_TOKEN}`]));
  expect(webhookPosts.map((p) => bodyOf(p))).toEqual([
    { alert: { id: r.id, name: "blocked-writes", kind: "runs_blocked", agent: "alert-notify", state: "firing", reminder: false, value: 1, threshold: 0, at: t0.toISOString(), url: link }, notice: { summary: firing, url: link } },
    { alert: { id: r.id, name: "blocked-writes", kind: "runs_blocked", agent: "alert-notify", state: "firing", reminder: true, value: 1, threshold: 0, at: at(t0, 11).toISOString(), url: link }, notice: { summary: reminder, url: link } },
    { alert: { id: r.id, name: "blocked-writes", kind: "runs_blocked", agent: "alert-notify", state: "resolved", reminder: false, value: 0, threshold: 0, at: at(t0, 62).toISOString(), url: link }, notice: { summary: resolved, url: link } },
  ]);
  const received = mails.slice(before.mails);
  expect(received.map((m) => [m.from?.text, (Array.isArray(m.to) ? m.to : [m.to]).map((a) => a?.text).join(), m.subject, m.text?.trim(), m.headers.get("x-hookplane-alert")])).toEqual([
    ['"Hookplane" <alerts@hookplane.example.com>', "ops@example.com, oncall@example.com", firing, `${firing}\n\nOpen the alert: ${link}`, r.id],
    ['"Hookplane" <alerts@hookplane.example.com>', "ops@example.com, oncall@example.com", reminder, `${reminder}\n\nOpen the alert: ${link}`, r.id],
    ['"Hookplane" <alerts@hookplane.example.com>', "ops@example.com, oncall@example.com", resolved, `${resolved}\n\nOpen the alert: ${link}`, r.id],
  ]);
  // No secret value travels in any of them but each service's own credential header.
  for (const text of [...slackPosts, ...discordPosts, ...webhookPosts].map((p) => p.body).concat(received.map((m) => `${m.subject} ${m.text}`))) {
    for (const value of ["xoxb-alerts-slack-1", "discord-alerts-bot-2", HOOK_TOKEN, SMTP_PASSWORD, DEPLOY_KEY]) expect(text).not.toContain(value);
  }
});

test("a rule that resolves and rises again within its cooldown waits for the cooldown, then fires once", async () => {
  const agent = await addAgent(h.t, { name: "alert-flapping" });
  await spentRun(agent.id, 5);
  const r = await rule({ name: "flapping", kind: "cost", agent: "alert-flapping", windowMinutes: 1440, threshold: 1, cooldownMinutes: 30 });
  const t0 = justAfter();
  await evaluateAlerts(h.t.db, deps(), t0);
  await updateAlertRuleAudited(h.t.db, admin, r.id, { threshold: 100 }, smtp);
  await evaluateAlerts(h.t.db, deps(), at(t0, 1));
  await updateAlertRuleAudited(h.t.db, admin, r.id, { threshold: 2 }, smtp);
  await evaluateAlerts(h.t.db, deps(), at(t0, 2));
  await evaluateAlerts(h.t.db, deps(), at(t0, 29));
  await evaluateAlerts(h.t.db, deps(), at(t0, 31));
  expect((await history(r.id)).map((e) => [e.state, e.reminder, e.threshold, e.at])).toEqual([
    ["firing", false, 1, t0],
    ["resolved", false, 100, at(t0, 1)],
    ["firing", false, 2, at(t0, 31)],
  ]);
});

test("evaluators racing: one firing, one notice; one resolution, one notice", async () => {
  const agent = await addAgent(h.t, { name: "alert-race" });
  await spentRun(agent.id, 3);
  // The rule's name carries a secret value: notices mask it.
  const r = await rule({ name: `race ${DEPLOY_KEY}`, kind: "cost", agent: "alert-race", windowMinutes: 60, threshold: 1, targets: [{ type: "webhook", url: `${hooks.url}/race` }] });
  const now = justAfter();
  await Promise.all(Array.from({ length: 4 }, () => evaluateAlerts(h.t.db, deps(), now)));
  await updateAlertRuleAudited(h.t.db, admin, r.id, { threshold: 50 }, smtp);
  await Promise.all(Array.from({ length: 4 }, () => evaluateAlerts(h.t.db, deps(), at(now, 1))));
  expect((await history(r.id)).map((e) => [e.state, e.reminder, e.value, e.at])).toEqual([
    ["firing", false, 3, now],
    ["resolved", false, 3, at(now, 1)],
  ]);
  const notices = hooks.requests.filter((q) => q.url === "/race").map((q) => (bodyOf(q).notice as { summary: string }).summary);
  expect(notices).toEqual([
    "Alert race [REDACTED]: cost of agent alert-race $3 over the last 1 h is above $1",
    "Resolved race [REDACTED]: cost of agent alert-race $3 over the last 1 h is back at or below $50",
  ]);
});

/** A pg-boss of its own, as another process would have. */
async function anotherBoss(handle: DbHandle): Promise<PgBoss> {
  const options = { supervise: false, schedule: false };
  const boss =
    handle.kind === "pglite"
      ? new PgBoss({ db: { executeSql: (text: string, values?: unknown[]) => handle.execute(text, values) } as never, ...options })
      : new PgBoss({ connectionString: handle.url, max: 2, ...options });
  boss.on("error", () => {});
  await boss.start();
  return boss;
}

test("the pg-boss schedule: two processes evaluate each period once between them", async () => {
  const bosses = [await anotherBoss(h.t), await anotherBoss(h.t)];
  const slots: number[] = [];
  const stops = await Promise.all(
    bosses.map((boss) => startAlertEvaluation(boss, h.t.db, { evaluationMs: 1_000, deps, onEvaluated: (_result, slot) => slots.push(slot!.getTime()) })),
  );
  try {
    const deadline = Date.now() + 20_000;
    while (slots.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  } finally {
    for (const stop of stops) await stop();
    for (const boss of bosses) await boss.stop({ graceful: true, wait: true, timeout: 5_000 });
  }
  expect(slots.length).toBeGreaterThanOrEqual(3);
  expect(new Set(slots).size).toBe(slots.length);
});

test("API: viewers read, only admins write (audited), bad rules are 422 at their path", async () => {
  const post = (token: string, body: unknown) => callRoute(alertsRoute.POST, { method: "POST", token, body });
  const good = { name: "api-rule", kind: "runs_failed", windowMinutes: 60, threshold: 2, targets: [{ type: "slack", channel: "#ops", tokenSecret: "SLACK_BOT_TOKEN" }] };
  expect((await post(tokens.viewer, good)).status).toBe(403);
  expect((await post(tokens.operator, good)).status).toBe(403);

  const bad = await post(tokens.admin, {
    name: "",
    kind: "cost",
    threshold: -1,
    cooldownMinutes: 0,
    targets: [{ type: "webhook", url: "https://hooks.example.com/${secret:HOOK_TOKEN}" }, { type: "slack", channel: "#ops" }, { type: "email", to: ["nobody"] }],
  });
  expect(bad.status).toBe(422);
  expect(bad.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(
    ["cooldownMinutes", "name", "targets[0].url", "targets[1].tokenSecret", "targets[2].to[0]", "threshold", "windowMinutes"].sort(),
  );
  const noSmtp = await post(tokens.admin, { ...good, targets: [{ type: "email", to: ["ops@example.com"] }] });
  expect(noSmtp).toMatchObject({ status: 422, body: { error: { issues: [{ path: "targets[0].type", message: expect.stringContaining("HOOKPLANE_SMTP_HOST") }] } } });
  const noAgent = await post(tokens.admin, { ...good, agent: "no-such-agent" });
  expect(noAgent).toMatchObject({ status: 422, body: { error: { issues: [{ path: "agent" }] } } });

  const created = await post(tokens.admin, good);
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ name: "api-rule", kind: "runs_failed", windowMinutes: 60, threshold: 2, cooldownMinutes: 60, enabled: true, state: "ok" });
  expect((await post(tokens.admin, good)).status).toBe(409);
  const id = created.body.id as string;

  const list = await callRoute(alertsRoute.GET, { token: tokens.viewer });
  expect(list.status).toBe(200);
  expect(list.body.items.find((i: { id: string }) => i.id === id)).toMatchObject({ name: "api-rule", state: "ok" });
  expect((await callRoute(alertRoute.GET, { token: tokens.viewer, params: { id } })).body).toMatchObject({ id, name: "api-rule" });

  const patch = (token: string, body: unknown) => callRoute(alertRoute.PATCH, { method: "PATCH", token, params: { id }, body });
  expect((await patch(tokens.viewer, { threshold: 3 })).status).toBe(403);
  expect((await patch(tokens.operator, { threshold: 3 })).status).toBe(403);
  expect(await patch(tokens.admin, { cooldownMinutes: 0 })).toMatchObject({ status: 422, body: { error: { issues: [{ path: "cooldownMinutes" }] } } });
  expect(await patch(tokens.admin, { kind: "approvals_waiting" })).toMatchObject({ status: 422, body: { error: { issues: [{ path: "waitMinutes" }] } } });
  const changed = await patch(tokens.admin, { kind: "approvals_waiting", waitMinutes: 20, agent: "alert-waits", threshold: 0 });
  expect(changed.status).toBe(200);
  expect(changed.body).toMatchObject({ kind: "approvals_waiting", waitMinutes: 20, agent: "alert-waits" });
  expect(changed.body.windowMinutes).toBeUndefined();

  await evaluateAlerts(h.t.db, deps(), at(justAfter(), 30));
  const events = await callRoute(alertEventsRoute.GET, { token: tokens.viewer, params: { id }, path: "/?limit=10" });
  expect(events.status).toBe(200);
  expect(events.body.items).toMatchObject([{ ruleId: id, state: "firing", reminder: false, value: 1, threshold: 0, notified: [{ target: "slack:#ops", ok: true }] }]);
  expect(events.body.nextCursor).toBeNull();

  expect((await callRoute(alertRoute.DELETE, { method: "DELETE", token: tokens.viewer, params: { id } })).status).toBe(403);
  expect((await callRoute(alertRoute.DELETE, { method: "DELETE", token: tokens.admin, params: { id } })).status).toBe(204);
  expect((await callRoute(alertRoute.GET, { token: tokens.viewer, params: { id } })).status).toBe(404);
  expect((await callRoute(alertEventsRoute.GET, { token: tokens.viewer, params: { id } })).status).toBe(404);

  const audit = await listAudit(h.t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "alert", entityId: id, limit: 10 });
  expect(audit.map((a) => [a.action, a.actor])).toEqual([
    ["alert.delete", "token:admin"],
    ["alert.update", "token:admin"],
    ["alert.create", "token:admin"],
  ]);
  expect(audit[1].before).toMatchObject({ kind: "runs_failed", windowMinutes: 60 });
  expect(audit[1].after).toMatchObject({ kind: "approvals_waiting", waitMinutes: 20, agent: "alert-waits" });
});
