/**
 * The Claude Code bridge end to end: the real `hookplane` CLI, fed Claude Code's hook stdin JSON,
 * talks over HTTP to the real route handlers (served by node:http in this process) on a fresh
 * database; approvals are decided through the approvals API while the CLI waits.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runHookplaneCli, type CliResult } from "@/test/bridges/hook-cli-runner";
import { expireIdleSessions } from "./session-ingest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { createHook } from "@/db/queries/hooks";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRun, listRuns } from "@/db/queries/runs";
import { closedPort } from "@/test/bridge-harness";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { startRouteServer, type RouteServer } from "@/lib/platform/api/route-server";
import { callRoute } from "@/test/api-client";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { stopProcessApprovalWaiter } from "@/lib/features/approvals/approval-waiter-registry";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";
import * as approvalsRoute from "@/app/api/v1/approvals/route";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import * as eventsRoute from "@/app/api/v1/ingest/events/route";
import * as runsCancelRoute from "@/app/api/v1/runs/[id]/cancel/route";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { addPersonToken, addToken } from "@/test/people";
import type { Role } from "@/db/schema";

let t: TestDatabase;
let server: RouteServer;
let operator: string;
/** Another person's token: the agent's own credential never decides what its calls asked. */
let approver: string;
let viewer: string;
let guardedId: string;

function runCli(args: string[], stdin: unknown, env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runHookplaneCli(args, stdin, { HOOKPLANE_URL: server.url, HOOKPLANE_TOKEN: operator, ...env });
}

const hook = (agentId: string, spec: Record<string, unknown>) =>
  createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ ...spec, scope: `agent:${agentId}` }), actor: "test" });

const claude = (sessionId: string, event: string, extra: Record<string, unknown> = {}) => ({
  session_id: sessionId,
  transcript_path: "/tmp/transcript.jsonl",
  cwd: "/home/dev/project",
  permission_mode: "default",
  hook_event_name: event,
  ...extra,
});

async function sessionRun(sessionId: string) {
  const runs = await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 });
  return runs.find((r) => r.prompt.includes(sessionId.slice(0, 8)));
}

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  const token = async (role: Role) => (await addPersonToken(t.db, { role, name: role })).token;
  operator = await token("operator");
  approver = (await addToken(t.db, { role: "operator", name: "approver" })).token;
  viewer = await token("viewer");

  const guarded = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "guarded" }) }))!;
  guardedId = guarded.id;
  await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "open" }) });
  await hook(guarded.id, { id: "no-rm", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "No rm -rf here", denyIf: "rm -rf" } });
  await hook(guarded.id, { id: "ask-writes", event: "tool.pre", matcher: "Write", action: { type: "approve", timeoutMs: 60_000, onTimeout: "deny" } });
  await hook(guarded.id, { id: "secrets", event: "tool.pre", matcher: "Read", action: { type: "context", text: "Never print secrets." } });
  await hook(guarded.id, { id: "no-leaks", event: "user.prompt.submit", when: "prompt: /password/i", action: { type: "block", reason: "Prompts must not carry passwords" } });

  server = await startRouteServer([
    { method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST },
    { method: "POST", path: "/api/v1/ingest/events", handler: eventsRoute.POST },
    { method: "GET", path: "/api/v1/approvals", handler: approvalsRoute.GET },
    { method: "POST", path: "/api/v1/approvals/:id/decision", handler: decisionRoute.POST },
  ]);
});

afterAll(async () => {
  await server?.close();
  await stopProcessApprovalWaiter();
  await t?.drop();
});

describe("hookplane hook claude-code", () => {
  const session = "5f0c7e1a-aaaa-4bbb-8ccc-000000000001";
  const cli = (stdin: unknown, extra: string[] = []) => runCli(["hook", "claude-code", "--agent", "guarded", ...extra], stdin);

  test("SessionStart starts a live run of the agent: source claude-code, the session id, running", async () => {
    const out = await cli(claude(session, "SessionStart", { source: "startup" }));
    expect(out.code).toBe(0);
    expect(out.json()).toEqual({});
    const run = (await sessionRun(session))!;
    expect(run).toMatchObject({ agentId: guardedId, source: "claude-code", externalSessionId: session, status: "running" });
  });

  test("a blocked PreToolUse: deny JSON with the hook's reason, exit 0", async () => {
    const out = await cli(claude(session, "PreToolUse", { tool_name: "Bash", tool_input: { command: "rm -rf /srv" }, tool_use_id: "toolu_1" }));
    expect(out.code).toBe(0);
    expect(out.json()).toEqual({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "No rm -rf here" },
    });
    const run = (await sessionRun(session))!;
    expect(run.blocked).toBe(true);
    expect(run.toolsUsed).toEqual(["Bash"]);
  });

  test("an allowed PreToolUse answers {} so Claude Code's own permission rules still apply", async () => {
    const out = await cli(claude(session, "PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_2" }));
    expect(out.code).toBe(0);
    expect(out.json()).toEqual({});
  });

  test("a context hook answers additionalContext", async () => {
    const out = await cli(claude(session, "PreToolUse", { tool_name: "Read", tool_input: { file_path: "/etc/hosts" }, tool_use_id: "toolu_3" }));
    expect(out.json()).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "Never print secrets." } });
  });

  test("a blocked UserPromptSubmit answers decision block", async () => {
    const out = await cli(claude(session, "UserPromptSubmit", { prompt: "my password is hunter2" }));
    expect(out.json()).toEqual({ decision: "block", reason: "Prompts must not carry passwords" });
  });

  for (const decision of ["approve", "deny"] as const) {
    test(`an approve hook holds the CLI until a person decides (${decision}) through the API`, async () => {
      const toolUseId = `toolu_write_${decision}`;
      const pending = cli(claude(session, "PreToolUse", { tool_name: "Write", tool_input: { file_path: "a.txt", content: "x" }, tool_use_id: toolUseId }));
      let exited = false;
      void pending.then(() => (exited = true));
      let approvalId: string | undefined;
      await expect
        .poll(async () => {
          const list = await callRoute(approvalsRoute.GET, { token: viewer, path: "/api/v1/approvals?status=pending" });
          approvalId = list.body.items.find((a: { toolCallId: string }) => a.toolCallId === toolUseId)?.id;
          return approvalId;
        }, { timeout: 15_000, interval: 50 })
        .toBeTruthy();
      await expect.poll(async () => (await sessionRun(session))!.status, { timeout: 5_000, interval: 50 }).toBe("waiting_approval");
      await new Promise((r) => setTimeout(r, 300));
      expect(exited).toBe(false);

      const decidedAt = Date.now();
      const decided = await callRoute(decisionRoute.POST, { method: "POST", token: approver, params: { id: approvalId! }, body: { decision, reason: "looked fine" } });
      expect(decided.status).toBe(200);
      const out = await pending;
      expect(out.exitedAt).toBeGreaterThanOrEqual(decidedAt);
      expect(out.code).toBe(0);
      const answer = out.json() as { hookSpecificOutput: Record<string, string> };
      expect(answer.hookSpecificOutput.permissionDecision).toBe(decision === "approve" ? "allow" : "deny");
      expect(answer.hookSpecificOutput.permissionDecisionReason).toMatch(/by token:approver.*looked fine/);
      expect((await sessionRun(session))!.status).toBe("running");
    });
  }

  test("PostToolUse and Stop are recorded; Stop does not end the session", async () => {
    expect((await cli(claude(session, "PostToolUse", { tool_name: "Bash", tool_input: { command: "ls" }, tool_response: { stdout: "a.txt" }, tool_use_id: "toolu_2" }))).json()).toEqual({});
    expect((await cli(claude(session, "Stop", { stop_hook_active: false }))).json()).toEqual({});
    expect((await sessionRun(session))!.status).toBe("running");
  });

  test("SessionEnd finishes the run as completed; its events are gapless and in order", async () => {
    const out = await cli(claude(session, "SessionEnd", { reason: "prompt_input_exit" }));
    expect(out.code).toBe(0);
    const run = (await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: (await sessionRun(session))!.id }))!;
    expect(run).toMatchObject({ status: "finished", outcome: "completed", reason: "prompt_input_exit" });
    const events = await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 1000 });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.type)).toEqual([
      "session.start",
      "tool.pre",
      "loop.tool_denied",
      "tool.pre",
      "tool.pre",
      "user.prompt.submit",
      "tool.pre",
      "approval.requested",
      "approval.settled",
      "tool.pre",
      "approval.requested",
      "approval.settled",
      "loop.tool_denied",
      "tool.post",
      "turn.end",
      "session.end",
    ]);
    expect(events[1].data).toMatchObject({ toolName: "Bash", toolInput: { command: "rm -rf /srv" }, toolCallId: "toolu_1", cwd: "/home/dev/project" });
  });

  test("concurrent first events of a new session share one run", async () => {
    const fresh = "5f0c7e1a-bbbb-4bbb-8ccc-000000000002";
    const outs = await Promise.all(
      [1, 2, 3, 4].map((i) => cli(claude(fresh, "PreToolUse", { tool_name: "Bash", tool_input: { command: `echo ${i}` }, tool_use_id: `toolu_c${i}` }))),
    );
    expect(outs.map((o) => o.code)).toEqual([0, 0, 0, 0]);
    const runs = (await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 })).filter((r) => r.externalSessionId === fresh);
    expect(runs).toHaveLength(1);
    const events = await listRunEventsAfter(t.db, { runId: runs[0].id, after: 0, limit: 100 });
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  test("a cancel from the dashboard denies the session's next tool call, and the ones after", async () => {
    const cancelled = "5f0c7e1a-cccc-4bbb-8ccc-000000000003";
    await cli(claude(cancelled, "SessionStart"));
    const run = (await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 })).find((r) => r.externalSessionId === cancelled)!;
    const cancel = await callRoute(runsCancelRoute.POST, { method: "POST", token: operator, params: { id: run.id } });
    expect(cancel.status).toBe(202);
    for (const id of ["toolu_x1", "toolu_x2"]) {
      const out = await cli(claude(cancelled, "PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: id }));
      expect((out.json() as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision).toBe("deny");
    }
    expect(await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: run.id })).toMatchObject({ status: "finished", outcome: "cancelled" });
  });

  test("an unknown agent or a bad token: no answer, so the CLI fails closed with the server's reason", async () => {
    const unknown = await runCli(["hook", "claude-code", "--agent", "nobody"], claude(session, "PreToolUse", { tool_name: "Bash", tool_input: {} }));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/answered 404: Agent "nobody" not found — blocking because --fail-open is not set/);
    const badToken = await runCli(["hook", "claude-code", "--agent", "guarded"], claude(session, "PreToolUse", { tool_name: "Bash", tool_input: {} }), { HOOKPLANE_TOKEN: "hp_wrong" });
    expect(badToken.code).toBe(2);
    expect(badToken.stderr).toMatch(/answered 401/);
  });

  test("an unreachable server: exit 2 with the reason, or exit 0 and a warning with --fail-open", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const payload = claude(session, "PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } });
    const closed = await runCli(["hook", "claude-code", "--agent", "guarded", "--url", url], payload);
    expect(closed.code).toBe(2);
    expect(closed.stdout).toBe("");
    expect(closed.stderr).toContain(`Hookplane unreachable at ${url}: ECONNREFUSED — blocking because --fail-open is not set`);
    const open = await runCli(["hook", "claude-code", "--agent", "guarded", "--url", url, "--fail-open"], payload);
    expect(open.code).toBe(0);
    expect(open.stderr).toMatch(/allowing because --fail-open is set/);
    // Stop is never blocked: exit 2 there would keep Claude working.
    const stop = await runCli(["hook", "claude-code", "--agent", "guarded", "--url", url], claude(session, "Stop"));
    expect(stop.code).toBe(0);
    expect(stop.stderr).toMatch(/not blocking Stop/);
  });

  test("a skill's shell line (PreSkillShellCommand, 2.1.332) is decided by the Bash guard, and refused when Hookplane cannot be reached", async () => {
    const shell = (command: string, id: string) =>
      claude(session, "PreSkillShellCommand", { tool_name: "Bash", tool_input: { command }, tool_use_id: id, command_name: "deploy", command_source: "projectSettings", invoked_by: "user" });
    const denied = await cli(shell("rm -rf build", "toolu_skill_1"));
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout)).toEqual({ hookSpecificOutput: { hookEventName: "PreSkillShellCommand", permissionDecision: "deny", permissionDecisionReason: "No rm -rf here" } });
    const allowed = await cli(shell("ls", "toolu_skill_2"));
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toEqual({});
    const url = `http://127.0.0.1:${await closedPort()}`;
    const down = await runCli(["hook", "claude-code", "--agent", "guarded", "--url", url], shell("ls", "toolu_skill_3"));
    expect(down.code).toBe(2);
    expect(down.stderr).toContain("blocking because --fail-open is not set");
  });

  test("a server slower than --timeout-ms counts as no answer", async () => {
    const silent = await startRouteServer([{ method: "POST", path: "/api/v1/ingest/claude-code", handler: () => new Promise(() => {}) }]);
    try {
      const out = await runCli(["hook", "claude-code", "--agent", "guarded", "--url", silent.url, "--timeout-ms", "300"], claude(session, "PreToolUse", { tool_name: "Bash" }));
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/no answer within 300 ms — blocking/);
    } finally {
      await silent.close();
    }
  });
});

describe("POST /api/v1/ingest/events", () => {
  const send = (body: unknown, token = operator) => callRoute(eventsRoute.POST, { method: "POST", token, body });

  test("a canonical event in, the decision out; the session is a run with the runtime's source", async () => {
    const blocked = await send({ agent: "guarded", sessionId: "rt-1", source: "my-runtime", event: { type: "tool.pre", data: { toolName: "Bash", toolInput: { command: "rm -rf /" } } } });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toMatchObject({ verdict: "block", reason: "No rm -rf here", seq: 1 });
    expect(blocked.body.reminders).toEqual(["hook no-rm blocked Bash: No rm -rf here"]);
    const context = await send({ agent: "guarded", sessionId: "rt-1", source: "my-runtime", event: { type: "tool.pre", data: { toolName: "Read", toolInput: {} } } });
    expect(context.body).toMatchObject({ verdict: "allow", context: ["Never print secrets."] });
    const end = await send({ agent: "guarded", sessionId: "rt-1", source: "my-runtime", event: { type: "session.end", data: { outcome: "failed", reason: "crashed" } } });
    expect(end.body.verdict).toBe("allow");
    expect(await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: blocked.body.runId })).toMatchObject({ source: "my-runtime", status: "finished", outcome: "failed", reason: "crashed" });
  });

  test("bad input is a 422 at its path; a viewer is refused", async () => {
    const bad = await send({ agent: "guarded", sessionId: "rt-2", event: { type: "tool.prep", data: {} } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.issues[0].path).toBe("event.type");
    expect((await send({ agent: "guarded", sessionId: "rt-2", event: { type: "tool.pre" } }, viewer)).status).toBe(403);
  });

  test("a payload that breaks its event's schema is refused at its path, and nothing is recorded", async () => {
    const before = (await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 500 })).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ type: "tool.pre", data: { toolInput: {} } }, "event.data.toolName"],
      [{ type: "tool.pre", data: { toolName: 42 } }, "event.data.toolName"],
      [{ type: "tool.post", data: { toolName: "Bash", isError: "yes" } }, "event.data.isError"],
      [{ type: "model.post", data: { model: "gpt", inputTokens: -1 } }, "event.data.inputTokens"],
      [{ type: "session.end", data: { outcome: "exploded" } }, "event.data.outcome"],
      [{ type: "agent.start", data: {} }, "event.data.agentName"],
    ];
    for (const [event, path] of cases) {
      const res = await send({ agent: "guarded", sessionId: "rt-typed", source: "my-runtime", event });
      expect(res.status, JSON.stringify(event)).toBe(422);
      expect(res.body.error.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    expect((await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 500 })).length).toBe(before);
  });
});

describe("sessions that go quiet", () => {
  test("a session with no event for the idle time is ended as a timeout, session.end and all", async () => {
    const session = "5f0c7e1a-aaaa-4bbb-8ccc-0000000000aa";
    expect((await runCli(["hook", "claude-code", "--agent", "guarded"], claude(session, "SessionStart", { source: "startup" }))).code).toBe(0);
    const run = (await sessionRun(session))!;
    expect(await expireIdleSessions(t, 3_600_000)).toBe(0);
    await t.execute(`update run_events set ts = now() - interval '2 hours' where run_id = '${run.id}'`);
    expect(await expireIdleSessions(t, 3_600_000)).toBe(1);
    const ended = (await sessionRun(session))!;
    expect(ended).toMatchObject({ status: "finished", outcome: "timeout" });
    expect(ended.reason).toContain("no event from the session for 60 min");
    const { rows } = await t.execute(`select type from run_events where run_id = '${run.id}' order by seq`);
    expect(rows.map((r) => r.type)).toEqual(["session.start", "session.end"]);
    expect(await expireIdleSessions(t, 3_600_000)).toBe(0);
  });
});
