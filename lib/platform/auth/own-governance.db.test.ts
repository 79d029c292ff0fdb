/**
 * A governed agent cannot free itself (issue 30, 4), whatever its credential's role: the operator
 * API token a developer's coding agent sends its hook events with tries each escape an attacker
 * found (approve the approval its own call waits on, disable its guard, shadow it, empty its denyIf,
 * delete the approve hook, add an allow rule and move it first, patch its own agent), and each is
 * refused, audited, while the guard keeps refusing `rm -rf`. Another person decides; an admin's
 * explicit grant to a named person lifts it, never a grant to oneself; a token no person owns sends
 * no hook events at all; the kill switch too.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { createHook } from "@/db/queries/hooks";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { setKillSwitchAudited } from "@/lib/features/hooks/kill-switch-service";
import { INGEST_ROUTES } from "@/lib/features/bridge/ingest-routes";
import { stopProcessApprovalWaiter } from "@/lib/features/approvals/approval-waiter-registry";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPerson, addToken } from "@/test/people";
import * as hooksRoute from "@/app/api/v1/hooks/route";
import * as hookRoute from "@/app/api/v1/hooks/[id]/route";
import * as reorderRoute from "@/app/api/v1/hooks/reorder/route";
import * as agentRoute from "@/app/api/v1/agents/[id]/route";
import * as approvalsRoute from "@/app/api/v1/approvals/route";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";
import * as grantRoute from "@/app/api/v1/self-governance/[userId]/route";
import type { Principal } from "./roles";

let t: TestDatabase;
let lead: { id: string; token: string };
let alice: { id: string; token: string; other: string };
let unowned: string;
const hookIds: Record<string, string> = {};
let devId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  const leadUser = await addPerson(t.db, { email: "lead@example.com", role: "admin" });
  lead = { id: leadUser.id, token: (await addToken(t.db, { role: "admin", userId: leadUser.id, name: "lead" })).token };
  const aliceUser = await addPerson(t.db, { email: "alice@example.com", role: "operator" });
  // The token in her coding agent's environment, and another of hers she uses in scripts.
  alice = {
    id: aliceUser.id,
    token: (await addToken(t.db, { role: "operator", userId: aliceUser.id, name: "alice-agent" })).token,
    other: (await addToken(t.db, { role: "operator", userId: aliceUser.id, name: "alice-scripts" })).token,
  };
  unowned = (await addToken(t.db, { role: "operator", name: "ci-runner" })).token;
  devId = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "dev" }) }))!.id;
  await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "other" }) });
  for (const spec of [
    { id: "no-rm", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "No rm -rf", denyIf: "rm -rf" } },
    { id: "ask-deploys", event: "tool.pre", scope: `agent:${devId}`, matcher: "Bash", when: "tool_input.command: /deploy/", action: { type: "approve", timeoutMs: 60_000, onTimeout: "deny" } },
  ]) {
    hookIds[spec.id] = (await createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse(spec), actor: "test" }))!.id;
  }
});
afterAll(async () => {
  await stopProcessApprovalWaiter();
  await t?.drop();
});

function hookCall(token: string, command: string, session: string, id: string) {
  return callRoute(INGEST_ROUTES["claude-code"], {
    method: "POST",
    token,
    headers: { "x-hookplane-agent": "dev" },
    body: { session_id: session, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: id },
  });
}
const decision = (res: { body: { hookSpecificOutput?: { permissionDecision?: string } } }) => res.body.hookSpecificOutput?.permissionDecision ?? "allow";
const refusals = async () => (await t.execute("select actor, entity_type, entity_id from audit_log where action = 'governance.self_refused' order by id")).rows;

async function pendingOf(token: string, command: string, session: string, id: string) {
  const waiting = hookCall(token, command, session, id);
  let pending: { id: string }[] = [];
  await expect.poll(async () => (pending = (await callRoute(approvalsRoute.GET, { path: "/api/v1/approvals?status=pending", token: lead.token })).body.items).length, { timeout: 15_000 }).toBe(1);
  return { waiting, approvalId: pending[0].id };
}

test("the agent's own operator token tries every escape: each refused and audited, and the guard still holds", async () => {
  expect(decision(await hookCall(alice.token, "ls", "alice-1", "a0"))).toBe("allow");
  const { waiting, approvalId } = await pendingOf(alice.token, "make deploy", "alice-1", "a1");

  const attempts = {
    approveOwn: await callRoute(decisionRoute.POST, { method: "POST", token: alice.token, params: { id: approvalId }, body: { decision: "approve" } }),
    approveWithHerOtherToken: await callRoute(decisionRoute.POST, { method: "POST", token: alice.other, params: { id: approvalId }, body: { decision: "approve" } }),
    disableGuard: await callRoute(hookRoute.PATCH, { method: "PATCH", token: alice.token, params: { id: hookIds["no-rm"] }, body: { enabled: false } }),
    shadowGuard: await callRoute(hookRoute.PATCH, { method: "PATCH", token: alice.token, params: { id: hookIds["no-rm"] }, body: { mode: "shadow" } }),
    emptyDenyIf: await callRoute(hookRoute.PATCH, { method: "PATCH", token: alice.token, params: { id: hookIds["no-rm"] }, body: { action: { type: "block", reason: "No rm -rf" } } }),
    deleteApprove: await callRoute(hookRoute.DELETE, { method: "DELETE", token: alice.token, params: { id: hookIds["ask-deploys"] } }),
    addAllowRule: await callRoute(hooksRoute.POST, { method: "POST", token: alice.token, body: { id: "let-me", event: "tool.pre", scope: "agent:dev", action: { type: "allow" } } }),
    moveFirst: await callRoute(reorderRoute.POST, { method: "POST", token: alice.token, body: { scope: "global", ids: [hookIds["no-rm"]] } }),
    patchOwnAgent: await callRoute(agentRoute.PATCH, { method: "PATCH", token: alice.token, params: { id: "dev" }, body: { budgetUsd: 1000 } }),
    grantHerself: await callRoute(grantRoute.PUT, { method: "PUT", token: alice.token, params: { userId: alice.id } }),
  };
  expect(Object.fromEntries(Object.entries(attempts).map(([k, r]) => [k, r.status]))).toEqual({
    approveOwn: 403,
    approveWithHerOtherToken: 403,
    disableGuard: 403,
    shadowGuard: 403,
    emptyDenyIf: 403,
    deleteApprove: 403,
    addAllowRule: 403,
    moveFirst: 403,
    patchOwnAgent: 403,
    grantHerself: 403, // an operator grants nothing
  });
  expect(attempts.approveOwn.body.error.message).toContain("decide an approval your own coding agent's call is waiting on");
  expect(attempts.disableGuard.body.error.message).toContain("governs your own coding agents' calls");
  // Every refusal but the operator's grant (refused by role before it is read) is in the audit log, as hers.
  expect(await refusals()).toEqual([
    { actor: "token:alice-agent", entity_type: "approval", entity_id: approvalId },
    { actor: "token:alice-scripts", entity_type: "approval", entity_id: approvalId },
    { actor: "token:alice-agent", entity_type: "hook", entity_id: hookIds["no-rm"] },
    { actor: "token:alice-agent", entity_type: "hook", entity_id: hookIds["no-rm"] },
    { actor: "token:alice-agent", entity_type: "hook", entity_id: hookIds["no-rm"] },
    { actor: "token:alice-agent", entity_type: "hook", entity_id: hookIds["ask-deploys"] },
    { actor: "token:alice-agent", entity_type: "hook", entity_id: null },
    { actor: "token:alice-agent", entity_type: "hook", entity_id: null },
    { actor: "token:alice-agent", entity_type: "agent", entity_id: devId },
  ]);
  // Nothing changed: the approval still waits, the guard still refuses.
  expect((await t.execute("select status from approvals where id = $1", [approvalId])).rows).toEqual([{ status: "pending" }]);
  expect((await t.execute("select enabled, version from hooks where id = $1", [hookIds["no-rm"]])).rows).toEqual([{ enabled: true, version: 1 }]);
  expect(decision(await hookCall(alice.token, "rm -rf ~/work", "alice-1", "a2"))).toBe("deny");
  // What does not govern her own calls stays hers to change (another agent's rules).
  expect((await callRoute(hooksRoute.POST, { method: "POST", token: alice.token, body: { id: "other-guard", event: "tool.pre", scope: "agent:other", action: { type: "log" } } })).status).toBe(201);

  // Another person decides; the agent gets the answer.
  expect((await callRoute(decisionRoute.POST, { method: "POST", token: lead.token, params: { id: approvalId }, body: { decision: "deny", reason: "not now" } })).status).toBe(200);
  expect(decision(await waiting)).toBe("deny");
});

test("an admin's explicit grant to a named person lifts it; nobody grants it to themselves; revoked, it holds again", async () => {
  expect((await callRoute(grantRoute.PUT, { method: "PUT", token: lead.token, params: { userId: lead.id } })).status).toBe(403);
  expect((await callRoute(grantRoute.PUT, { method: "PUT", token: lead.token, params: { userId: alice.id } })).status).toBe(200);
  const allowed = await callRoute(hookRoute.PATCH, { method: "PATCH", token: alice.token, params: { id: hookIds["ask-deploys"] }, body: { timeoutMs: 30_000 } });
  expect(allowed.status).toBe(200);
  expect((await callRoute(grantRoute.DELETE, { method: "DELETE", token: lead.token, params: { userId: alice.id } })).status).toBe(200);
  expect((await callRoute(hookRoute.PATCH, { method: "PATCH", token: alice.token, params: { id: hookIds["ask-deploys"] }, body: { timeoutMs: 20_000 } })).status).toBe(403);
  const audit = (await t.execute("select actor, action, entity_id from audit_log where action in ('governance.self_granted', 'governance.self_revoked') order by id")).rows;
  expect(audit).toEqual([
    { actor: "token:lead", action: "governance.self_granted", entity_id: alice.id },
    { actor: "token:lead", action: "governance.self_revoked", entity_id: alice.id },
  ]);
});

test("a token no person owns sends no hook events: refused with why, nothing recorded", async () => {
  // A token from before tokens had owners names no one: what it sent would be no one's act.
  const refused = await hookCall(unowned, "make deploy", "ci-1", "c1");
  expect(refused.status).toBe(403);
  expect(refused.body.error.message).toContain("belongs to no person or service account");
  expect((await t.execute("select count(*)::integer as n from runs where external_session_id = 'ci-1'")).rows).toEqual([{ n: 0 }]);
});

test("an instance admin whose own agents are governed cannot switch every hook off without a grant", async () => {
  const admin2 = await addPerson(t.db, { email: "ops@example.com", instanceAdmin: true });
  const token = (await addToken(t.db, { role: "admin", userId: admin2.id, name: "ops-agent" })).token;
  expect(decision(await hookCall(token, "ls", "ops-1", "o1"))).toBe("allow");
  const principal: Principal = { kind: "user", id: admin2.id, userId: admin2.id, label: "ops@example.com", role: "admin", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: true };
  await expect(setKillSwitchAudited(t.db, principal, true)).rejects.toMatchObject({ status: 403 });
  expect((await t.execute("select value from settings where key = 'hooks_kill_switch'")).rows.map((r) => (r.value as { enabled?: boolean }).enabled ?? false)).not.toContain(true);
  // Switching it back on (hooks enforced again) is never refused.
  await expect(setKillSwitchAudited(t.db, principal, false)).resolves.toBeTruthy();
});
