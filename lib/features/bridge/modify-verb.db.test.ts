/**
 * The modify verb through the bridges: what a coding agent is answered when Hookplane's hooks or
 * an approver change a call, what an agent that cannot apply the change gets (the call blocked,
 * with the reason, never run unmodified), and what the ledger, the run and the approval keep.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { getApprovalInAnyProject, listApprovals } from "@/db/queries/approvals";
import { listAudit } from "@/db/queries/audit";
import { createHook } from "@/db/queries/hooks";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRunByExternalSession } from "@/db/queries/runs";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { sha256Of } from "@/lib/core/hooks/modification-record";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { stopProcessApprovalWaiter } from "@/lib/features/approvals/approval-waiter-registry";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import * as codexRoute from "@/app/api/v1/ingest/codex/route";
import * as copilotRoute from "@/app/api/v1/ingest/copilot/route";
import * as eventsRoute from "@/app/api/v1/ingest/events/route";
import * as geminiRoute from "@/app/api/v1/ingest/gemini-cli/route";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPersonToken, addToken } from "@/test/people";

let t: TestDatabase;
let bridge: string;
let operator: string;
let viewer: string;
const agents: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  bridge = (await addPersonToken(t.db, { role: "operator", name: "bridge" })).token;
  operator = (await addToken(t.db, { role: "operator", name: "ops-approver" })).token;
  viewer = (await addToken(t.db, { role: "viewer", name: "viewer-approver" })).token;
  for (const name of ["rewriter", "gated"]) {
    agents[name] = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name }) }))!.id;
  }
  const hook = (agent: string, spec: Record<string, unknown>) =>
    createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ ...spec, scope: `agent:${agents[agent]}` }), actor: "test" });
  await hook("rewriter", { id: "safe-rm", event: "tool.pre", matcher: "Bash|run_shell_command|Shell", action: { type: "modify", input: { command: "rm -rf ./build", description: null } } });
  await hook("rewriter", { id: "no-keys", event: "tool.post", matcher: "Bash|Read", action: { type: "modify", redact: ["sk-[A-Za-z0-9]{8,}"] } });
  await hook("rewriter", { id: "confirm-deploys", event: "tool.pre", matcher: "Deploy", action: { type: "ask", reason: "deploys need a human" } });
  await hook("gated", { id: "ops-ok", event: "tool.pre", matcher: "Bash|bash", action: { type: "approve", timeoutMs: 600_000, approvers: { roles: ["viewer", "operator"] } } });
});

afterAll(async () => {
  await stopProcessApprovalWaiter();
  await t?.drop();
});

const claude = (agent: string, body: Record<string, unknown>, route = claudeCodeRoute.POST) =>
  callRoute(route, { method: "POST", token: bridge, headers: { "x-hookplane-agent": agent }, body: { cwd: "/home/dev/project", ...body } });
const pre = (session: string, tool: string, input: Record<string, unknown>, id: string) => ({ session_id: session, hook_event_name: "PreToolUse", tool_name: tool, tool_input: input, tool_use_id: id });

async function runOf(agent: string, session: string) {
  const run = (await getRunByExternalSession(t.db, { agentId: agents[agent], externalSessionId: session }))!;
  return { run, events: await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 100 }), ledger: await listRunHookInvocations(t.db, { runId: run.id }) };
}

describe("Claude Code", () => {
  const session = "5b0c0000-0000-4000-8000-000000000001";

  test("a rewritten input is answered as updatedInput with an allow, and the ledger and the run keep it", async () => {
    const res = await claude("rewriter", pre(session, "Bash", { command: "rm -rf build", description: "clean" }, "toolu_rw"));
    expect(res.status).toBe(200);
    expect(res.body.hookSpecificOutput).toMatchObject({
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      permissionDecisionReason: "input rewritten in Hookplane by hook safe-rm",
      updatedInput: { command: "rm -rf ./build" },
    });
    const { events, ledger } = await runOf("rewriter", session);
    expect(events.map((e) => e.type)).toEqual(["tool.pre", "loop.tool_modified"]);
    expect(events[1].data).toEqual({ toolCallId: "toolu_rw", toolName: "Bash", kind: "input", input: { command: "rm -rf ./build" }, by: ["safe-rm"] });
    const row = ledger.find((r) => r.hookKey === "safe-rm")!;
    expect(row.modification).toEqual({ kind: "input", proposed: { command: "rm -rf build", description: "clean" }, effective: { command: "rm -rf ./build" }, applied: true });
  });

  test("a redacted output is answered as updatedToolOutput; the ledger keeps the original's hash, not the secret", async () => {
    const response = { stdout: "KEY=sk-abcdefgh1234\n", stderr: "", interrupted: false };
    const res = await claude("rewriter", { session_id: session, hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "env" }, tool_response: response, tool_use_id: "toolu_env" });
    expect(res.body.hookSpecificOutput).toMatchObject({ hookEventName: "PostToolUse", updatedToolOutput: { stdout: "KEY=[REDACTED]\n", stderr: "", interrupted: false } });
    expect(res.body.hookSpecificOutput.updatedMCPToolOutput).toBeUndefined();
    const { ledger } = await runOf("rewriter", session);
    const row = ledger.filter((r) => r.hookKey === "no-keys").at(-1)!;
    expect(row.modification).toEqual({ kind: "output", originalSha256: sha256Of(response), replaced: { stdout: "KEY=[REDACTED]\n", stderr: "", interrupted: false }, applied: true });
    expect(JSON.stringify(ledger)).not.toContain("sk-abcdefgh1234");
  });

  test("an ask hook is answered as Claude Code's own ask", async () => {
    const res = await claude("rewriter", pre(session, "Deploy", { env: "prod" }, "toolu_dep"));
    expect(res.body.hookSpecificOutput).toEqual({ hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "deploys need a human" });
  });
});

describe("an agent that cannot apply the change", () => {
  const session = "5b0c0000-0000-4000-8000-000000000002";

  test("Codex: a rewritten input blocks the call with the reason, never runs it as asked", async () => {
    const res = await claude("rewriter", pre(session, "Bash", { command: "rm -rf build" }, "call_rw"), codexRoute.POST);
    expect(res.body).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "Codex cannot apply a rewritten input (hook safe-rm changed it): blocked rather than run as asked",
      },
    });
    const { run, events } = await runOf("rewriter", session);
    expect(run.blocked).toBe(true);
    expect(events.find((e) => e.type === "loop.tool_denied")?.data).toMatchObject({ toolCallId: "call_rw", by: "agent", reason: expect.stringContaining("Codex cannot apply a rewritten input") });
    expect(events.some((e) => e.type === "loop.tool_modified")).toBe(false);
  });

  test("Codex: a call whose output a hook would redact is blocked before it runs; an ask is blocked too", async () => {
    const read = await claude("rewriter", pre(session, "Read", { file_path: ".env" }, "call_read"), codexRoute.POST);
    expect(read.body.hookSpecificOutput.permissionDecisionReason).toBe("Codex cannot replace a tool's output, and hook no-keys would change what Read returns: blocked before it runs");
    const ask = await claude("rewriter", pre(session, "Deploy", {}, "call_dep"), codexRoute.POST);
    expect(ask.body.hookSpecificOutput.permissionDecisionReason).toBe("Codex cannot ask its user (hook confirm-deploys: deploys need a human): blocked");
    // Claude Code replaces outputs: the same Read goes through.
    expect((await claude("rewriter", pre("5b0c0000-0000-4000-8000-000000000003", "Read", { file_path: ".env" }, "toolu_read"))).body).toEqual({});
  });

  test("Gemini CLI: a rewrite that keeps every key is answered as tool_input; one that removes a key is blocked; ask is Gemini's own", async () => {
    const gemini = (tool: string, toolInput: Record<string, unknown>, id: string) =>
      callRoute(geminiRoute.POST, { method: "POST", token: bridge, headers: { "x-hookplane-agent": "rewriter" }, body: { session_id: "gem-1", hook_event_name: "BeforeTool", cwd: "/w", tool_name: tool, tool_input: toolInput, tool_call_id: id } });
    // safe-rm removes `description`: Gemini CLI merges its answer over the asked arguments on one path, so that cannot hold.
    const removes = await gemini("run_shell_command", { command: "rm -rf build", description: "clean" }, "g-rm");
    expect(removes.body).toEqual({ decision: "deny", reason: "Gemini CLI cannot remove description from a tool's input (hook safe-rm did): blocked rather than run as asked" });
    const keeps = await gemini("run_shell_command", { command: "rm -rf build" }, "g-keep");
    expect(keeps.body).toEqual({ decision: "allow", reason: "input rewritten in Hookplane by hook safe-rm", hookSpecificOutput: { hookEventName: "BeforeTool", tool_input: { command: "rm -rf ./build" } } });
    const ask = await gemini("Deploy", {}, "g-dep");
    // Gemini CLI cannot replace an output: a call whose output a hook would redact is refused before it runs.
    expect((await gemini("Bash", { command: "env" }, "g-env")).body.reason).toBe("Gemini CLI cannot replace a tool's output, and hook no-keys would change what Bash returns: blocked before it runs");
    expect(ask.body).toEqual({ decision: "ask", reason: "deploys need a human", systemMessage: "deploys need a human" });
  });

  test("Cursor through Claude Code's settings: the same endpoint, but Cursor's support: a rewrite is blocked in both shapes", async () => {
    const res = await claude("rewriter", { conversation_id: "cursor-conv-1", hook_event_name: "PreToolUse", tool_name: "Shell", tool_input: { command: "rm -rf build" }, tool_use_id: "cur-1" });
    expect(res.body).toMatchObject({
      permission: "deny",
      hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "Cursor cannot apply a rewritten input (hook safe-rm changed it): blocked rather than run as asked" },
    });
    expect(res.body.hookSpecificOutput.updatedInput).toBeUndefined();
  });

  test("a generic runtime gets the change only when it says it applies it", async () => {
    const event = (applies?: Record<string, boolean>) =>
      callRoute(eventsRoute.POST, {
        method: "POST",
        token: bridge,
        body: { agent: "rewriter", sessionId: "generic-1", source: "my-runtime", event: { type: "tool.pre", data: { toolName: "Bash", toolInput: { command: "rm -rf build" }, toolCallId: "g1" } }, ...(applies && { applies }) },
      });
    expect((await event()).body).toMatchObject({ verdict: "block", reason: "my-runtime cannot apply a rewritten input (hook safe-rm changed it): blocked rather than run as asked" });
    expect((await event({ input: true, output: true })).body).toMatchObject({ verdict: "allow", toolInput: { command: "rm -rf ./build" } });
  });
});

describe("an approver edits the input before approving", () => {
  const session = "5b0c0000-0000-4000-8000-000000000010";
  const decide = (token: string, id: string, body: unknown) => callRoute(decisionRoute.POST, { method: "POST", token, params: { id }, body });

  async function pendingFor(toolUseId: string) {
    let found: Awaited<ReturnType<typeof listApprovals>>[number] | undefined;
    await expect
      .poll(async () => (found = (await listApprovals(t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 100 })).find((a) => a.toolCallId === toolUseId)), { timeout: 15_000, interval: 50 })
      .toBeTruthy();
    return found!;
  }

  test("wrong side first: a viewer cannot edit, bad input is refused at its path, and nothing is stored", async () => {
    const held = claude("gated", pre(session, "Bash", { command: "terraform apply" }, "toolu_held"));
    const approval = await pendingFor("toolu_held");

    const byViewer = await decide(viewer, approval.id, { decision: "approve", input: { command: "terraform plan" } });
    expect(byViewer.status).toBe(403);
    expect(byViewer.body.error.message).toContain("Editing the input before approving needs an operator or admin");

    const notObject = await decide(operator, approval.id, { decision: "approve", input: "terraform plan" });
    expect(notObject.status).toBe(422);
    expect(notObject.body.error.issues).toEqual([expect.objectContaining({ path: "input" })]);
    const list = await decide(operator, approval.id, { decision: "approve", input: ["terraform", "plan"] });
    expect(list.body.error.issues[0].path).toBe("input");
    const big = await decide(operator, approval.id, { decision: "approve", input: { command: "x".repeat(70_000) } });
    expect(big.status).toBe(422);
    expect(big.body.error.issues).toEqual([{ path: "input", message: expect.stringContaining("at most 65536") }]);
    const withDeny = await decide(operator, approval.id, { decision: "deny", input: { command: "terraform plan" } });
    expect(withDeny.body.error.issues).toEqual([{ path: "input", message: "an edited input goes with approve: a denied call does not run" }]);
    const withAlways = await decide(operator, approval.id, { decision: "approve", alwaysAllow: true, input: { command: "terraform plan" } });
    expect(withAlways.body.error.issues[0].path).toBe("alwaysAllow");

    expect(await getApprovalInAnyProject(t.db, { id: approval.id })).toMatchObject({ status: "pending", approvedInput: null, decidedBy: null });

    // The viewer may still decide as asked: a plain deny.
    const denied = await decide(viewer, approval.id, { decision: "deny", reason: "not today" });
    expect(denied.status).toBe(200);
    expect((await held).body.hookSpecificOutput).toMatchObject({ permissionDecision: "deny" });
  });

  test("the agent gets the edited input; the approval, the ledger and the audit log keep proposed, approved and who", async () => {
    const asked = { command: "terraform apply -auto-approve", description: "apply" };
    const edited = { command: "terraform plan", description: "apply" };
    const held = claude("gated", pre(session, "Bash", asked, "toolu_edit"));
    const approval = await pendingFor("toolu_edit");
    const res = await decide(operator, approval.id, { decision: "approve", reason: "plan first", input: edited });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "approved", approvedInput: edited, toolInput: asked, decidedBy: "token:ops-approver" });

    const answer = (await held).body.hookSpecificOutput;
    expect(answer).toMatchObject({ permissionDecision: "allow", updatedInput: edited, permissionDecisionReason: "approved in Hookplane by token:ops-approver: plan first" });

    expect(await getApprovalInAnyProject(t.db, { id: approval.id })).toMatchObject({ toolInput: asked, approvedInput: edited, decidedBy: "token:ops-approver", decidedVia: "api" });
    const { events, ledger } = await runOf("gated", session);
    const row = ledger.find((r) => r.hookKey === "ops-ok" && (r.approval as { approvalId?: string } | null)?.approvalId === approval.id)!;
    expect(row.reason).toBe("approved with an edited input by token:ops-approver via api: plan first");
    expect(row.modification).toEqual({ kind: "input", proposed: asked, approved: edited, effective: edited, applied: true });
    expect(events.find((e) => e.type === "approval.settled" && e.data.approvalId === approval.id)?.data).toMatchObject({ approvedInput: edited });
    expect(events.filter((e) => e.type === "loop.tool_modified").at(-1)?.data).toMatchObject({ toolCallId: "toolu_edit", kind: "input", input: edited, by: ["ops-ok"] });
    const audit = (await listAudit(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 50 })).find((a) => a.entityId === approval.id)!;
    expect(audit).toMatchObject({ action: "approval.approve", actor: "token:ops-approver" });
    expect(audit.after).toMatchObject({ approvedInput: edited, toolInput: asked });
  });

  test("Codex cannot run an edited call: the approved edit blocks it with the reason", async () => {
    const held = claude("gated", pre("5b0c0000-0000-4000-8000-000000000011", "Bash", { command: "make deploy" }, "call_edit"), codexRoute.POST);
    const approval = await pendingFor("call_edit");
    expect((await decide(operator, approval.id, { decision: "approve", input: { command: "make plan" } })).status).toBe(200);
    expect((await held).body.hookSpecificOutput).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: "Codex cannot apply a rewritten input (hook ops-ok changed it): blocked rather than run as asked" });
  });

  test("Copilot CLI's permission request has no field for new arguments: an approved edit there is a deny, recorded as the agent's", async () => {
    const session = "5b0c0000-0000-4000-8000-000000000013";
    const held = callRoute(copilotRoute.POST, {
      method: "POST",
      token: bridge,
      headers: { "x-hookplane-agent": "gated" },
      body: { hookName: "permissionRequest", hookEventName: "permissionRequest", sessionId: session, timestamp: Date.now(), cwd: "/w", toolName: "bash", toolInput: { command: "make deploy" }, permissionSuggestions: [] },
    });
    let approval: Awaited<ReturnType<typeof listApprovals>>[number] | undefined;
    await expect.poll(async () => (approval = (await listApprovals(t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 100 })).find((a) => JSON.stringify(a.toolInput).includes("make deploy") && a.toolName === "bash")), { timeout: 15_000, interval: 50 }).toBeTruthy();
    expect((await decide(operator, approval!.id, { decision: "approve", input: { command: "make plan" } })).status).toBe(200);
    const reason = "Copilot CLI cannot apply a rewritten input on a permission request (hook ops-ok changed it): blocked rather than run as asked";
    expect((await held).body).toEqual({ behavior: "deny", message: reason });
    const run = (await getRunByExternalSession(t.db, { agentId: agents.gated, externalSessionId: session }))!;
    const denied = (await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 100 })).find((e) => e.type === "loop.tool_denied");
    expect(denied?.data).toMatchObject({ by: "agent", reason });
  });

  test("Codex's permission request: an approved edit is a deny there too (Codex refuses updatedInput on it)", async () => {
    const held = claude("gated", { session_id: "5b0c0000-0000-4000-8000-000000000012", hook_event_name: "PermissionRequest", tool_name: "Bash", tool_input: { command: "make deploy" }, tool_use_id: "call_perm" }, codexRoute.POST);
    const approval = await pendingFor("call_perm");
    expect((await decide(operator, approval.id, { decision: "approve", input: { command: "make plan" } })).status).toBe(200);
    expect((await held).body).toEqual({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "Codex cannot apply a rewritten input (hook ops-ok changed it): blocked rather than run as asked" } } });
  });
});
