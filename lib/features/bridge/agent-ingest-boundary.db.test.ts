/**
 * Every coding agent's ingest endpoint from the wrong side: no token, a viewer's token, no agent
 * named, and a payload its own checks refuse are each answered with the right status and record
 * nothing; the operator's well-formed call is recorded.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { listRuns } from "@/db/queries/runs";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import * as claudeCode from "@/app/api/v1/ingest/claude-code/route";
import * as codex from "@/app/api/v1/ingest/codex/route";
import * as copilot from "@/app/api/v1/ingest/copilot/route";
import * as cursor from "@/app/api/v1/ingest/cursor/route";
import * as gemini from "@/app/api/v1/ingest/gemini-cli/route";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { addPersonToken, addToken } from "@/test/people";
import type { Role } from "@/db/schema";

const ENDPOINTS = [
  { name: "claude-code", route: claudeCode, ok: { session_id: "s-claude", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, cwd: "/tmp" }, refused: { session_id: "s-claude", hook_event_name: "PreToolUse", cwd: "/tmp" } },
  { name: "codex", route: codex, ok: { session_id: "s-codex", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, cwd: "/tmp" }, refused: { session_id: "s-codex", hook_event_name: "PreToolUse", cwd: "/tmp" } },
  { name: "gemini-cli", route: gemini, ok: { session_id: "s-gemini", hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command: "ls" }, cwd: "/tmp" } },
  { name: "copilot", route: copilot, ok: { sessionId: "s-copilot", hookEventName: "preToolUse", toolName: "bash", toolArgs: { command: "ls" }, cwd: "/tmp" } },
  { name: "cursor", route: cursor, ok: { conversation_id: "s-cursor", hook_event_name: "beforeShellExecution", command: "ls", cwd: "/tmp" } },
] as const;

let t: TestDatabase;
let operator: string;
let viewer: string;
/** An operator token no one owns (as tokens were before they had owners). */
let unowned: string;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  const token = async (role: Role) => (await addPersonToken(t.db, { role, name: role })).token;
  operator = await token("operator");
  viewer = await token("viewer");
  unowned = (await addToken(t.db, { role: "operator", name: "before-owners" })).token;
  await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "coder" }) });
});

afterAll(() => t.drop());

describe.each(ENDPOINTS)("POST /api/v1/ingest/$name", ({ name, route, ok, ...rest }) => {
  const post = (token: string | undefined, body: unknown, headers: Record<string, string> = { "x-hookplane-agent": "coder" }) =>
    callRoute(route.POST, { method: "POST", token, body, headers });

  test("refused without a token, with a viewer's, without an agent, or with a payload it cannot read; nothing recorded", async () => {
    const before = (await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 })).length;
    expect((await post(undefined, ok)).status).toBe(401);
    expect((await post(viewer, ok)).status).toBe(403);
    // An operator token no one owns: what it sent would be recorded as no one's.
    const nobody = await post(unowned, ok);
    expect(nobody.status).toBe(403);
    expect(nobody.body.error.message).toContain("Token token:before-owners belongs to no person or service account");
    const unnamed = await post(operator, ok, {});
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.error.message).toContain(`hookplane hook ${name} --agent NAME`);
    expect((await post(operator, { ...ok, cwd: 42 })).status).toBe(422);
    if ("refused" in rest) {
      const refused = await post(operator, rest.refused);
      expect(refused.status).toBe(422);
      expect(refused.body.error.issues).toEqual([{ path: "tool_name", message: "PreToolUse needs tool_name" }]);
    }
    expect(await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 })).toHaveLength(before);
  });

  test("an operator's well-formed call is recorded as a session of the named agent, as the operator's", async () => {
    const before = await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 });
    expect((await post(operator, ok)).status).toBe(200);
    const after = await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 });
    expect(after).toHaveLength(before.length + 1);
    const run = after.find((r) => !before.some((b) => b.id === r.id))!;
    expect(run).toMatchObject({ actorLabel: "operator@people.test", actorUserId: expect.any(String), actorKey: `user:${run.actorUserId}` });
  });
});

/**
 * Inputs each agent's own schema lets through but whose event would not be the catalog's payload:
 * the bridge checks what it produced, so the caller gets the field and nothing is stored.
 */
const DRIFTS = [
  // An empty tool_use_id would key every such call's approval the same.
  { name: "claude-code", route: claudeCode, body: { session_id: "drift-claude", hook_event_name: "PreToolUse", tool_name: "Bash", tool_use_id: "", tool_input: { command: "ls" }, cwd: "/tmp" }, path: "data.toolCallId" },
  { name: "codex", route: codex, body: { session_id: "drift-codex", hook_event_name: "PreToolUse", tool_name: "Bash", tool_use_id: "", tool_input: { command: "ls" }, cwd: "/tmp" }, path: "data.toolCallId" },
  { name: "copilot", route: copilot, body: { sessionId: "drift-copilot", hookEventName: "preToolUse", toolName: "x".repeat(700), toolArgs: { command: "ls" }, cwd: "/tmp" }, path: "data.toolName" },
] as const;

test.each(DRIFTS)("$name: an input that maps to a malformed $path is refused with that path, nothing recorded", async ({ route, body, path }) => {
  const before = (await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 })).length;
  const res = await callRoute(route.POST, { method: "POST", token: operator, body, headers: { "x-hookplane-agent": "coder" } });
  expect(res.status).toBe(422);
  expect(res.body.error.issues).toEqual([{ path, message: expect.stringContaining("(in the tool.pre event this hook input maps to)") }]);
  expect(await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 })).toHaveLength(before);
});
