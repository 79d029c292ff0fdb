/**
 * Sessions that ran without Hookplane's hooks, noticed through the coding agent's own telemetry
 * (issue 28, 1): Claude Code's OpenTelemetry logs posted to /api/v1/ingest/otel/v1/logs keep one
 * sighting per person and session; a session with no PreToolUse hook, in safe mode, or whose tool
 * calls never reached Hookplane as that person is listed and fires `unguarded_sessions`; a machine
 * whose installed settings are not the current export fires `settings_drift`. From the wrong side:
 * a viewer, protobuf, no agent, an unknown agent and a corrupt body store nothing; another person
 * with the same session id is not covered by the first person's run. With the real Claude Code
 * (when installed): a session without hooks is caught, the installed bridge's session is not.
 */
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { listAlertEvents } from "@/db/queries/alerts";
import { countUnguardedSessions, listUnguardedSessions } from "@/db/queries/coding-agent-sightings";
import { getRunByExternalSession } from "@/db/queries/runs";
import { codingAgentSightings, DEFAULT_PROJECT_ID } from "@/db/schema";
import { codingAgentSettings } from "@/lib/features/config-io/agent-installs";
import { evaluateAlerts } from "@/lib/features/alerts/alert-evaluator";
import { reachConfig } from "@/lib/features/approvals/reach-config";
import { callRoute } from "@/test/api-client";
import { findAgentCli, useAgentWorkspace, useBridgeHarness } from "@/test/bridge-harness";
import { startFakeAnthropic } from "@/test/bridges/fake-anthropic-api";
import { addPerson, addToken } from "@/test/people";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import * as otelLogsRoute from "@/app/api/v1/ingest/otel/v1/logs/route";
import * as installsRoute from "@/app/api/v1/ingest/installs/route";
import * as alertsRoute from "@/app/api/v1/alerts/route";

const AGENT = "team-claude";
const CLAUDE = findAgentCli("HOOKPLANE_CLAUDE_BIN", "claude");
const FIXTURES = path.join(import.meta.dirname, "../../../test/fixtures/bridges/claude-code/otel-logs");
const OTEL_PATH = "/api/v1/ingest/otel/v1/logs";

const h = useBridgeHarness({
  ingest: { method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST },
  agents: { [AGENT]: [{ id: "no-rm", event: "tool.pre", matcher: "Bash", when: "toolInput.command: /rm -rf/", action: { type: "block", reason: "no rm -rf" } }] },
  routes: [
    { method: "POST", path: OTEL_PATH, handler: otelLogsRoute.POST },
    { method: "POST", path: "/api/v1/ingest/installs", handler: installsRoute.POST },
  ],
});
const tokens: Record<"ada" | "bo" | "viewer" | "admin", string> = { ada: "", bo: "", viewer: "", admin: "" };
let ada: { id: string };

beforeAll(async () => {
  ada = await addPerson(h.t.db, { email: "ada@example.com", role: "operator" });
  const bo = await addPerson(h.t.db, { email: "bo@example.com", role: "operator" });
  tokens.ada = (await addToken(h.t.db, { role: "operator", userId: ada.id, kind: "bridge", name: "ada-laptop" })).token;
  tokens.bo = (await addToken(h.t.db, { role: "operator", userId: bo.id, kind: "bridge", name: "bo-laptop" })).token;
  tokens.viewer = (await addToken(h.t.db, { role: "viewer", name: "viewer" })).token;
  tokens.admin = (await addToken(h.t.db, { role: "admin", name: "admin" })).token;
});

/** The recorded batches of one Claude Code session, with its session id replaced by `sessionId`. */
function recorded(file: string, sessionId: string): unknown[] {
  const text = readFileSync(path.join(FIXTURES, file), "utf8");
  const original = /"key": "session\.id",\s*"value": \{\s*"stringValue": "([^"]+)"/.exec(text)![1];
  return JSON.parse(text.replaceAll(original, sessionId)) as unknown[];
}

const postLogs = (token: string, body: unknown, headers: Record<string, string> = {}) =>
  callRoute(otelLogsRoute.POST, { method: "POST", path: OTEL_PATH, token, body, headers: { "x-hookplane-agent": AGENT, ...headers } });

async function sendSession(token: string, file: string, sessionId: string) {
  for (const batch of recorded(file, sessionId)) expect((await postLogs(token, batch)).status).toBe(200);
}

const window = () => ({ projectId: DEFAULT_PROJECT_ID, from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 60_000) });
const unguarded = async () => (await listUnguardedSessions(h.t.db, window())).map((s) => ({ session: s.externalSessionId, reason: s.reason, actor: s.actorLabel, toolCalls: s.toolCalls }));
const allSightings = () => h.t.db.select().from(codingAgentSightings);

test("from the wrong side: a viewer, protobuf, no agent, an unknown agent and a corrupt body are refused, and nothing is kept", async () => {
  const batch = recorded("no-hooks-2.1.332.json", "wrong-side")[0];
  expect((await postLogs(tokens.viewer, batch)).status).toBe(403);
  const proto = await callRoute(otelLogsRoute.POST, { method: "POST", path: OTEL_PATH, token: tokens.ada, rawBody: "\x0a\x02", headers: { "content-type": "application/x-protobuf", "x-hookplane-agent": AGENT } });
  expect(proto.status).toBe(415);
  expect(proto.body.error.message).toContain("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL=http/json");
  const noAgent = await callRoute(otelLogsRoute.POST, { method: "POST", path: OTEL_PATH, token: tokens.ada, body: batch });
  expect(noAgent.status).toBe(400);
  expect(noAgent.body.error.message).toContain("x-hookplane-agent=NAME");
  expect((await postLogs(tokens.ada, batch, { "x-hookplane-agent": "nobody" })).status).toBe(404);
  const corrupt = await postLogs(tokens.ada, { resourceLogs: [{ scopeLogs: [{ logRecords: "not a list" }] }] });
  expect(corrupt.status).toBe(422);
  expect(JSON.stringify(corrupt.body.error.issues)).toContain("resourceLogs[0].scopeLogs[0].logRecords");
  expect(await allSightings()).toEqual([]);
});

test("a session with no hooks is unguarded as soon as its telemetry arrives; the bridged one is not; the alert fires, then resolves when the window passes", async () => {
  await sendSession(tokens.ada, "no-hooks-2.1.332.json", "s-no-hooks");
  expect(await unguarded()).toEqual([{ session: "s-no-hooks", reason: "no_gating_hook", actor: "ada@example.com", toolCalls: 1 }]);

  // Hooks registered, the tool call made, but no hook event of this session ever reached Hookplane.
  await sendSession(tokens.ada, "hooks-2.1.332.json", "s-bridged");
  expect(await unguarded()).toContainEqual({ session: "s-bridged", reason: "calls_unseen", actor: "ada@example.com", toolCalls: 1 });
  // Its PreToolUse reaches Hookplane as Ada (it did, before the tool ran): guarded.
  const call = await callRoute(claudeCodeRoute.POST, {
    method: "POST",
    token: tokens.ada,
    headers: { "x-hookplane-agent": AGENT },
    body: { session_id: "s-bridged", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "echo hi" }, tool_use_id: "t1", cwd: "/repo" },
  });
  expect(call.status).toBe(200);
  expect(await unguarded()).toEqual([{ session: "s-no-hooks", reason: "no_gating_hook", actor: "ada@example.com", toolCalls: 1 }]);

  // Bo's telemetry names Ada's session id: Ada's run does not cover Bo's calls.
  await sendSession(tokens.bo, "hooks-2.1.332.json", "s-bridged");
  expect(await unguarded()).toContainEqual({ session: "s-bridged", reason: "calls_unseen", actor: "bo@example.com", toolCalls: 1 });
  // A second batch of the same session adds to its row (one row per person and session).
  const rows = await allSightings();
  expect(rows.filter((r) => r.externalSessionId === "s-bridged").map((r) => [r.actorKey, r.toolCalls, r.hookRuns, r.cliVersion, r.hookInventory])).toEqual(
    expect.arrayContaining([
      [`user:${ada.id}`, 1, 2, "2.1.332", expect.arrayContaining([expect.objectContaining({ event: "PreToolUse", type: "command" })])],
      [expect.stringMatching(/^user:/), 1, 2, "2.1.332", expect.any(Array)],
    ]),
  );

  const rule = await callRoute(alertsRoute.POST, { method: "POST", token: tokens.admin, body: { name: "unguarded", kind: "unguarded_sessions", agent: AGENT, windowMinutes: 60, threshold: 0 } });
  expect(rule.status).toBe(201);
  const now = new Date(Date.now() + 1_000);
  await evaluateAlerts(h.t.db, { reach: reachConfig(), smtp: undefined }, now);
  const fired = await listAlertEvents(h.t.db, { ruleId: rule.body.id, limit: 10 });
  expect(fired.map((e) => [e.state, e.value, e.message])).toEqual([["firing", 2, `Alert unguarded: coding-agent sessions without Hookplane's hooks of agent ${AGENT} 2 over the last 1 h is above 0`]]);
  // Two hours on, nothing new: the window is empty and the rule resolves.
  await evaluateAlerts(h.t.db, { reach: reachConfig(), smtp: undefined }, new Date(now.getTime() + 2 * 3_600_000));
  expect((await listAlertEvents(h.t.db, { ruleId: rule.body.id, limit: 10 })).map((e) => [e.state, e.value])).toEqual([
    ["resolved", 0],
    ["firing", 2],
  ]);
});

test("safe mode is unguarded whatever hooks it lists", async () => {
  const batch = recorded("hooks-2.1.332.json", "s-safe")[0] as { resourceLogs: { scopeLogs: { logRecords: { attributes: { key: string; value: { stringValue?: string } }[] }[] }[] }[] };
  for (const record of batch.resourceLogs[0].scopeLogs[0].logRecords) for (const a of record.attributes) if (a.key === "safe_mode") a.value = { stringValue: "true" };
  expect((await postLogs(tokens.ada, batch)).status).toBe(200);
  expect(await unguarded()).toContainEqual({ session: "s-safe", reason: "safe_mode", actor: "ada@example.com", toolCalls: expect.any(Number) });
});

test("settings_drift: a machine whose installed settings are not the current export fires; installed again, it resolves", async () => {
  const current = await codingAgentSettings(h.t.db, { projectId: DEFAULT_PROJECT_ID, codingAgent: "claude-code", agent: AGENT });
  const install = (sha: string) =>
    callRoute(installsRoute.POST, { method: "POST", token: tokens.ada, body: { agent: AGENT, codingAgent: "claude-code", level: "project", settingsPath: "/repo/.claude/settings.json", settingsSha256: sha, host: "ada-laptop", osUser: "ada" } });
  expect((await install("0".repeat(64))).body.current).toBe(false);
  const bad = await callRoute(alertsRoute.POST, { method: "POST", token: tokens.admin, body: { name: "drift", kind: "settings_drift", windowMinutes: 60, threshold: 0 } });
  expect(bad.status).toBe(422);
  expect(JSON.stringify(bad.body.error.issues)).toContain("a settings_drift rule has no window");
  const rule = await callRoute(alertsRoute.POST, { method: "POST", token: tokens.admin, body: { name: "drift", kind: "settings_drift", threshold: 0 } });
  expect(rule.status).toBe(201);
  const t0 = Date.now() + 1_000;
  await evaluateAlerts(h.t.db, { reach: reachConfig(), smtp: undefined }, new Date(t0));
  expect((await listAlertEvents(h.t.db, { ruleId: rule.body.id, limit: 10 })).map((e) => [e.state, e.value, e.message])).toEqual([["firing", 1, "Alert drift: machines with drifted hook settings 1 is above 0"]]);
  expect((await install(current.sha256)).body.current).toBe(true);
  await evaluateAlerts(h.t.db, { reach: reachConfig(), smtp: undefined }, new Date(t0 + 60_000));
  expect((await listAlertEvents(h.t.db, { ruleId: rule.body.id, limit: 10 })).map((e) => [e.state, e.value])).toEqual([
    ["resolved", 0],
    ["firing", 1],
  ]);
});

describe.skipIf(!CLAUDE)(CLAUDE ? "the real Claude Code CLI" : "Claude Code CLI not installed: set HOOKPLANE_CLAUDE_BIN to run this", () => {
  const workspace = useAgentWorkspace(h, "hp-unguarded-", startFakeAnthropic);

  async function runClaude(name: string, settings: string | undefined, sessionMarker: string) {
    const dir = path.join(workspace.work, name);
    mkdirSync(path.join(dir, ".claude"), { recursive: true });
    mkdirSync(path.join(dir, "home"), { recursive: true });
    if (settings) writeFileSync(path.join(dir, ".claude", "settings.json"), settings);
    const out = await workspace.run(CLAUDE!, ["-p", `bash: echo ${sessionMarker}`, "--output-format", "json", "--allowedTools", "Bash"], dir, {
      HOME: path.join(dir, "home"),
      HOOKPLANE_TOKEN: tokens.ada,
      ANTHROPIC_BASE_URL: workspace.fake.url,
      ANTHROPIC_API_KEY: "sk-ant-fake",
      ANTHROPIC_MODEL: "claude-sonnet-4-5",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      // What the team's managed settings set (docs/coding-agents.md): Claude Code's telemetry to Hookplane.
      CLAUDE_CODE_ENABLE_TELEMETRY: "1",
      OTEL_LOGS_EXPORTER: "otlp",
      OTEL_METRICS_EXPORTER: "none",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: `${h.server.url}/api/v1/ingest/otel`,
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${tokens.ada},x-hookplane-agent=${AGENT}`,
      OTEL_LOGS_EXPORT_INTERVAL: "500",
    }).done;
    expect(out.code, out.output).toBe(0);
    return JSON.parse(out.stdout.trim().split("\n").pop()!).session_id as string;
  }

  test("a session without hooks is caught by its own telemetry; the session with the installed bridge is not", async () => {
    const bare = await runClaude("bare", undefined, "bare");
    const installed = (await codingAgentSettings(h.t.db, { projectId: DEFAULT_PROJECT_ID, codingAgent: "claude-code", agent: AGENT })).content;
    const bridged = await runClaude("bridged", installed, "bridged");
    // Claude Code flushes its logs on exit; the sightings are there once it is gone.
    const rows = await allSightings();
    expect(rows.find((r) => r.externalSessionId === bare)).toMatchObject({ actorKey: `user:${ada.id}`, toolCalls: 1, hookRuns: 0, hookInventory: [] });
    expect(rows.find((r) => r.externalSessionId === bridged)).toMatchObject({ actorKey: `user:${ada.id}`, toolCalls: 1, hookInventory: expect.arrayContaining([expect.objectContaining({ event: "PreToolUse", type: "command" })]) });
    expect(await getRunByExternalSession(h.t.db, { agentId: h.agentIds[AGENT], externalSessionId: bridged, actorKey: `user:${ada.id}` })).toBeDefined();
    const listed = await unguarded();
    expect(listed).toContainEqual({ session: bare, reason: "no_gating_hook", actor: "ada@example.com", toolCalls: 1 });
    expect(listed.map((s) => s.session)).not.toContain(bridged);
    expect(await countUnguardedSessions(h.t.db, { ...window(), agentId: h.agentIds[AGENT] })).toBe(listed.length);
  }, 120_000);
});
