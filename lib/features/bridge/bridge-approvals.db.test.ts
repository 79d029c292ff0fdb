/**
 * Approvals of bridged sessions (Claude Code through `hookplane hook claude-code`): a caller that
 * stops waiting, or a session that ends, abandons the approval. Nothing then says the tool was
 * denied (the agent may have run it: its PostToolUse is recorded as it happened), the approval can
 * no longer be decided, and the approve hook's ledger row reads abandoned.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { getApprovalInAnyProject, listApprovals } from "@/db/queries/approvals";
import { createHook } from "@/db/queries/hooks";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRunByExternalSession } from "@/db/queries/runs";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { startRouteServer, type RouteServer } from "@/lib/platform/api/route-server";
import { callRoute } from "@/test/api-client";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { json, startServer, type LocalServer } from "@/lib/core/hooks/testing/fakes";
import { stopProcessApprovalWaiter } from "@/lib/features/approvals/approval-waiter-registry";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import { setEnv } from "@/test/config-env";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { addPersonToken, addToken } from "@/test/people";

let t: TestDatabase;
let server: RouteServer;
let listener: LocalServer;
let operator: string;
/** Another person's token: the agent's own credential never decides what its calls asked. */
let approver: string;
let agentId: string;
const previousAllow = process.env.HOOKPLANE_ALLOW_PRIVATE_HOSTS;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  listener = await startServer((_req, res) => json(res, 200, {}));
  setEnv({ HOOKPLANE_ALLOW_PRIVATE_HOSTS: "127.0.0.1" });
  operator = (await addPersonToken(t.db, { role: "operator", name: "operator" })).token;
  approver = (await addToken(t.db, { role: "operator", name: "approver" })).token;
  const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "bridged" }) }))!;
  agentId = agent.id;
  const hook = (spec: Record<string, unknown>) => createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ ...spec, scope: `agent:${agent.id}` }), actor: "test" });
  await hook({ id: "ask-writes", event: "tool.pre", matcher: "Write", action: { type: "approve", timeoutMs: 600_000, onTimeout: "deny" } });
  await hook({ id: "page-someone", event: "approval.requested", action: { type: "webhook", url: `${listener.url}/page` } });
  server = await startRouteServer([{ method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST }]);
});

afterAll(async () => {
  await server?.close();
  await listener?.close();
  await stopProcessApprovalWaiter();
  await t?.drop();
  setEnv({ HOOKPLANE_ALLOW_PRIVATE_HOSTS: previousAllow });
});

const claude = (sessionId: string, event: string, extra: Record<string, unknown> = {}) => ({
  session_id: sessionId,
  cwd: "/home/dev/project",
  hook_event_name: event,
  ...extra,
});

const cli = (stdin: unknown, extra: string[] = []) =>
  runHookplaneCli(["hook", "claude-code", "--agent", "bridged", ...extra], stdin, { HOOKPLANE_URL: server.url, HOOKPLANE_TOKEN: operator });

async function pendingFor(toolUseId: string) {
  let found: Awaited<ReturnType<typeof listApprovals>>[number] | undefined;
  await expect
    .poll(async () => {
      found = (await listApprovals(t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 100 })).find((a) => a.toolCallId === toolUseId);
      return found;
    }, { timeout: 15_000, interval: 50 })
    .toBeTruthy();
  return found!;
}

const decide = (id: string) => callRoute(decisionRoute.POST, { method: "POST", token: approver, params: { id }, body: { decision: "approve" } });

test("a caller that stops waiting abandons the approval; the tool that then ran is recorded as run, not denied", async () => {
  const session = "7a1e2b3c-0000-4000-8000-00000000000a";
  await cli(claude(session, "SessionStart", { source: "startup" }));
  const paged = listener.requests.length;
  // Claude Code's hook timeout: the CLI gives up after 1.5 s; Claude Code then goes on as it sees fit.
  const out = await cli(claude(session, "PreToolUse", { tool_name: "Write", tool_input: { file_path: "a.txt", content: "x" }, tool_use_id: "toolu_gone" }), [
    "--timeout-ms",
    "1500",
    "--fail-open",
  ]);
  expect(out.code).toBe(0);
  expect(listener.requests.length - paged).toBe(1);
  expect(JSON.parse(listener.requests.at(-1)!.body)).toMatchObject({ event: "approval.requested", toolName: "Write", hookId: "ask-writes" });

  const [approval] = (await listApprovals(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 })).filter((a) => a.toolCallId === "toolu_gone");
  await expect.poll(async () => (await getApprovalInAnyProject(t.db, { id: approval.id }))?.status, { timeout: 5_000 }).toBe("abandoned");
  const late = await decide(approval.id);
  expect(late.status).toBe(409);
  expect(late.body.error.message).toContain("the caller stopped waiting");

  // The agent went on and wrote the file: its PostToolUse is the record of what happened.
  await cli(claude(session, "PostToolUse", { tool_name: "Write", tool_input: { file_path: "a.txt", content: "x" }, tool_response: { success: true }, tool_use_id: "toolu_gone" }));
  const run = (await getRunByExternalSession(t.db, { agentId, externalSessionId: session }))!;
  expect(run).toMatchObject({ status: "running", blocked: false });
  const events = await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 100 });
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  expect(events.map((e) => e.type)).toEqual(["session.start", "tool.pre", "approval.requested", "approval.settled", "tool.post"]);
  expect(events.find((e) => e.type === "approval.settled")?.data).toMatchObject({ approvalId: approval.id, status: "abandoned" });
  const ledger = await listRunHookInvocations(t.db, { runId: run.id });
  expect(ledger.map((r) => [r.event, r.hookKey, r.verdict])).toEqual([
    ["approval.requested", "page-someone", "allow"],
    ["tool.pre", "ask-writes", null],
  ]);
  const ask = ledger.find((r) => r.hookKey === "ask-writes")!;
  expect(ask.reason).toBe("abandoned: the caller stopped waiting for a decision");
  expect(ask.approval).toMatchObject({ approvalId: approval.id, status: "abandoned" });
});

test("a session that ends abandons what is still pending; the held request is told no one decided", async () => {
  const session = "7a1e2b3c-0000-4000-8000-00000000000b";
  await cli(claude(session, "SessionStart", { source: "startup" }));
  const held = cli(claude(session, "PreToolUse", { tool_name: "Write", tool_input: { file_path: "b.txt", content: "y" }, tool_use_id: "toolu_held" }));
  const approval = await pendingFor("toolu_held");
  await cli(claude(session, "SessionEnd", { reason: "prompt_input_exit" }));

  const out = await held;
  expect(out.code).toBe(0);
  const answer = JSON.parse(out.stdout);
  expect(answer.hookSpecificOutput).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: expect.stringContaining("ended") });
  expect(await getApprovalInAnyProject(t.db, { id: approval.id })).toMatchObject({ status: "abandoned", decidedVia: "abandoned" });
  expect((await decide(approval.id)).status).toBe(409);
  const run = (await getRunByExternalSession(t.db, { agentId, externalSessionId: session }))!;
  expect(run).toMatchObject({ status: "finished", outcome: "completed" });
});
