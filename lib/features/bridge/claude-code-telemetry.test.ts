/**
 * Claude Code's OpenTelemetry logs, as recorded from the real CLI (test/fixtures/bridges/
 * claude-code/otel-logs, SOURCE.md), read into one summary per session: its registered hooks,
 * tool calls and hook runs. What is not Claude Code's is counted as ignored, not misread.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { otlpLogsSchema, sessionsInLogs, type SessionTelemetry } from "./claude-code-telemetry";

const FIXTURES = path.join(import.meta.dirname, "../../../test/fixtures/bridges/claude-code/otel-logs");
const batches = (file: string) => (JSON.parse(readFileSync(path.join(FIXTURES, file), "utf8")) as unknown[]).map((b) => otlpLogsSchema.parse(b));

/** A session's summary over all the batches of one recording. */
function summary(file: string): SessionTelemetry {
  const all = batches(file).flatMap((b) => sessionsInLogs(b).sessions);
  expect(new Set(all.map((s) => s.sessionId)).size).toBe(1);
  return all.reduce((a, s) => ({
    ...a,
    registered: [...a.registered, ...s.registered],
    inventoryComplete: a.inventoryComplete || s.inventoryComplete,
    toolCalls: a.toolCalls + s.toolCalls,
    hookRuns: a.hookRuns + s.hookRuns,
  }));
}

test.each([
  ["hooks-2.1.332.json", "2.1.332"],
  ["hooks-2.1.197.json", "2.1.197"],
])("%s: the hook inventory, one tool call and the hook runs of the session", (file, version) => {
  const s = summary(file);
  expect(s).toMatchObject({ codingAgent: "claude-code", cliVersion: version, inventoryComplete: true, safeMode: false, toolCalls: 1, hookRuns: 2 });
  expect(s.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  expect(s.registered).toEqual([
    { event: "PreToolUse", type: "command", source: "projectSettings" },
    { event: "SessionStart", type: "command", source: "projectSettings" },
  ]);
});

test("a session with no hooks: its inventory is whole and empty once it is past its start, its tool call still counted", () => {
  expect(summary("no-hooks-2.1.332.json")).toMatchObject({ registered: [], inventoryComplete: true, toolCalls: 1, hookRuns: 0 });
});

test("records of another service, or without a session id or event name, are counted as ignored", () => {
  const record = (attrs: Record<string, string>) => ({ attributes: Object.entries(attrs).map(([key, v]) => ({ key, value: { stringValue: v } })) });
  const logs = otlpLogsSchema.parse({
    resourceLogs: [
      { resource: { attributes: [{ key: "service.name", value: { stringValue: "codex-cli" } }] }, scopeLogs: [{ logRecords: [record({ "session.id": "x", "event.name": "tool_result" })] }] },
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "claude-code" } }] },
        scopeLogs: [{ logRecords: [record({ "event.name": "tool_result" }), record({ "session.id": "s1", "event.name": "hook_registered", hook_event: "PreToolUse", hook_type: "http", hook_source: "policySettings", hook_matcher: "Bash", safe_mode: "true" })] }],
      },
    ],
  });
  const { sessions, ignored } = sessionsInLogs(logs);
  expect(ignored).toBe(2);
  expect(sessions).toEqual([
    { codingAgent: "claude-code", sessionId: "s1", cliVersion: "", registered: [{ event: "PreToolUse", type: "http", source: "policySettings", matcher: "Bash" }], inventoryComplete: false, safeMode: true, toolCalls: 0, hookRuns: 0 },
  ]);
});
