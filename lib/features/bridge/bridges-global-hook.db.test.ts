/**
 * One guard for every coding agent: a single hook bound to the `global` scope answers each bridge
 * in that agent's own hook format, and every session lands in the same runs list, by source.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { createHook } from "@/db/queries/hooks";
import { listRuns } from "@/db/queries/runs";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { callRoute } from "@/test/api-client";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import * as claudeRoute from "@/app/api/v1/ingest/claude-code/route";
import * as codexRoute from "@/app/api/v1/ingest/codex/route";
import * as copilotRoute from "@/app/api/v1/ingest/copilot/route";
import * as cursorRoute from "@/app/api/v1/ingest/cursor/route";
import * as geminiRoute from "@/app/api/v1/ingest/gemini-cli/route";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { addPersonToken, addToken } from "@/test/people";

let t: TestDatabase;
let operator: string;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  operator = (await addPersonToken(t.db, { role: "operator", name: "operator" })).token;
  await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "team" }) });
  await createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ id: "no-rm", event: "tool.pre", scope: "global", action: { type: "block", reason: "No rm -rf, anywhere", denyIf: "rm -rf" } }), actor: "test" });
});

afterAll(async () => t?.drop());

const RM = "rm -rf /srv/data";
const CASES = [
  ["claude-code", claudeRoute.POST, { session_id: "g-claude", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: RM }, tool_use_id: "t1" }, { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "No rm -rf, anywhere" } }],
  ["codex", codexRoute.POST, { session_id: "g-codex", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: RM }, tool_use_id: "c1" }, { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "No rm -rf, anywhere" } }],
  ["gemini-cli", geminiRoute.POST, { session_id: "g-gemini", hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command: RM } }, { decision: "deny", reason: "No rm -rf, anywhere" }],
  ["copilot", copilotRoute.POST, { sessionId: "g-copilot", hookEventName: "preToolUse", toolName: "bash", toolArgs: { command: RM } }, { permissionDecision: "deny", permissionDecisionReason: "No rm -rf, anywhere" }],
  ["cursor", cursorRoute.POST, { conversation_id: "g-cursor", hook_event_name: "beforeShellExecution", command: RM }, { permission: "deny", user_message: "No rm -rf, anywhere", agent_message: "No rm -rf, anywhere" }],
] as const;

test("a global hook blocks the same call in all five agents, each in its own answer format", async () => {
  for (const [source, route, body, answer] of CASES) {
    const res = await callRoute(route as never, { method: "POST", token: operator, headers: { "x-hookplane-agent": "team" }, body });
    expect(res.status, source).toBe(200);
    expect(res.body, source).toEqual(answer);
  }
  const runs = await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 20 });
  expect(runs.map((r) => [r.source, r.blocked]).sort()).toEqual(CASES.map(([source]) => [source, true]).sort());
});
