/**
 * Approvals and alerts between two projects: an approval belongs to its run's project; another
 * project's people reach it through no door (API list and decision, the dashboard's decide,
 * a decision link, a Slack button), and a refusal changes nothing (the row, the audit log). An
 * alert rule measures its own project only.
 */
import { setEnv } from "@/test/config-env";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { getApprovalInAnyProject, getOrCreateApproval, type ApprovalRow } from "@/db/queries/approvals";
import { setUserSlackId } from "@/db/queries/approval-notices";
import { getAlertRule } from "@/db/queries/alerts";
import { listAudit } from "@/db/queries/audit";
import { createRun, finishRun } from "@/db/queries/runs";
import type { ApproverGroups } from "@/db/schema";
import * as approvalsRoute from "@/app/api/v1/approvals/route";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";
import * as slackRoute from "@/app/api/integrations/slack/interactions/route";
import * as decideRoute from "@/app/decide/[token]/route";
import * as alertsRoute from "@/app/api/v1/alerts/route";
import * as alertRoute from "@/app/api/v1/alerts/[id]/route";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPerson, addProject, addToken } from "@/test/people";
import { personIn } from "@/test/run-harness";
import { json, startServer, type LocalServer } from "@/lib/core/hooks/testing/fakes";
import { AppError } from "@/lib/platform/api/app-error";
import { decideApproval, deciderOf } from "@/lib/features/approvals/approval-decisions";
import { measureAlert } from "@/lib/features/alerts/alert-evaluator";
import { alertRuleSchema } from "@/lib/features/alerts/alert-rules";
import { createAlertRuleAudited } from "@/lib/features/alerts/alert-service";
import { linkExpiry, mintDecisionToken, toolInputHash } from "./decision-links";
import { slackSignature } from "./slack-interactions";
import { slackButtonValue } from "./slack-button-value";

const SIGNING_SECRET = "a1b2c3d4e5f60718293a4b5c6d7e8f90";
const PUBLIC = "https://hookplane.example.com";

let t: TestDatabase;
let slack: LocalServer;
let restoreEnv: () => void;
const project = { a: { id: "", slug: "alpha" }, b: { id: "", slug: "beta" } };
const tokens = { aOperator: "", bOperator: "", bAdmin: "", aViewer: "" };
const runs = { a: "", b: "" };

beforeAll(async () => {
  slack = await startServer((_req, res) => json(res, 200, { ok: true }));
  restoreEnv = setEnv({
    HOOKPLANE_PUBLIC_URL: PUBLIC,
    HOOKPLANE_SLACK_SIGNING_SECRET: SIGNING_SECRET,
    HOOKPLANE_SLACK_BASE_URL: slack.url,
    HOOKPLANE_ALLOW_PRIVATE_HOSTS: "127.0.0.1",
    HOOKPLANE_SECRET_KEY: randomBytes(32).toString("base64"),
  });
  t = await createTestDatabase();
  installDatabase(t);
  const a = await addProject(t.db, { slug: "alpha" });
  const b = await addProject(t.db, { slug: "beta" });
  project.a.id = a.id;
  project.b.id = b.id;
  const ann = await addPerson(t.db, { email: "ann@example.com", role: "operator", projectId: a.id });
  const bea = await addPerson(t.db, { email: "bea@example.com", role: "operator", projectId: b.id });
  await setUserSlackId(t.db, { id: ann.id, slackUserId: "UANN0001" });
  await setUserSlackId(t.db, { id: bea.id, slackUserId: "UBEA0001" });
  tokens.aOperator = (await addToken(t.db, { name: "ann", role: "operator", projectId: a.id, userId: ann.id })).token;
  tokens.aViewer = (await addToken(t.db, { name: "a-viewer", role: "viewer", projectId: a.id })).token;
  tokens.bOperator = (await addToken(t.db, { name: "bea", role: "operator", projectId: b.id, userId: bea.id })).token;
  tokens.bAdmin = (await addToken(t.db, { name: "b-admin", role: "admin", projectId: b.id })).token;
  const agentA = await createAgent(t.db, { projectId: a.id, spec: { name: "worker", model: "scripted", tools: [], maxTurns: 2, timeoutMs: 10_000 } });
  const agentB = await createAgent(t.db, { projectId: b.id, spec: { name: "worker", model: "scripted", tools: [], maxTurns: 2, timeoutMs: 10_000 } });
  // Outside sessions: a decision wakes them by NOTIFY, no run queue needed here.
  runs.a = (await createRun(t.db, { projectId: a.id, agentId: agentA!.id, prompt: "a", source: "test", externalSessionId: "sess-a" })).id;
  runs.b = (await createRun(t.db, { projectId: b.id, agentId: agentB!.id, prompt: "b", source: "test", externalSessionId: "sess-b" })).id;
});

afterAll(async () => {
  await t.drop();
  await slack.close();
  restoreEnv();
});

let calls = 0;
async function ask(runId: string, approvers: ApproverGroups | null = null): Promise<ApprovalRow> {
  const { row } = await getOrCreateApproval(t.db, { runId, hookKey: "ask", toolName: "shell", toolInput: { cmd: "ls" }, toolCallId: `call-${++calls}`, onTimeout: "deny", expiresAt: null, approvers });
  return row;
}

/** The approval exactly as it was asked, and no audit row about it. */
async function expectUntouched(approval: ApprovalRow) {
  expect(await getApprovalInAnyProject(t.db, { id: approval.id })).toMatchObject({ ...approval, status: "pending", decidedBy: null, decidedVia: null, decidedAt: null, reason: null });
  // In no project at all: a wrongly allowed decision would be audited in the decider's project.
  expect((await t.execute("select id from audit_log where entity_type = 'approval' and entity_id = $1", [approval.id])).rows).toEqual([]);
}

function slackClick(value: string, userId: string) {
  const payload = {
    type: "block_actions",
    user: { id: userId, username: userId.toLowerCase() },
    channel: { id: "C0OPS" },
    message: { ts: "1700000000.000100" },
    response_url: `${slack.url}/respond/${userId}`,
    actions: [{ action_id: "hookplane_approve", block_id: "hookplane_decision", value, type: "button", action_ts: `1700000001.${++calls}` }],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(Math.floor(Date.now() / 1000));
  return slackRoute.POST(
    new Request("http://localhost/api/integrations/slack/interactions", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-slack-request-timestamp": timestamp, "x-slack-signature": slackSignature(SIGNING_SECRET, timestamp, body) },
      body,
    }),
  );
}

const linkFor = (approval: ApprovalRow, recipient: string, runId = approval.runId) =>
  mintDecisionToken({ approvalId: approval.id, runId, decision: "approve", recipient, inputHash: toolInputHash(approval.toolInput), expiresAt: linkExpiry(approval) });

async function openLink(token: string) {
  const response = await decideRoute.GET(new Request(`${PUBLIC}/decide/${token}`), { params: Promise.resolve({ token }) });
  return { status: response.status, html: await response.text() };
}

describe("approvals", () => {
  test("an approval belongs to its run's project", async () => {
    expect((await ask(runs.a)).projectId).toBe(project.a.id);
    expect((await ask(runs.b)).projectId).toBe(project.b.id);
  });

  test("the API lists only the project's approvals; B deciding A's approval is a 404 and changes nothing", async () => {
    const approval = await ask(runs.a);
    const listedB = await callRoute(approvalsRoute.GET, { token: tokens.bOperator, path: "/api/v1/approvals?limit=100" });
    expect(listedB.status).toBe(200);
    expect(listedB.body.items.map((i: { projectId: string }) => i.projectId)).toEqual(listedB.body.items.map(() => project.b.id));
    expect(listedB.body.items.some((i: { id: string }) => i.id === approval.id)).toBe(false);
    const listedA = await callRoute(approvalsRoute.GET, { token: tokens.aViewer, path: "/api/v1/approvals?limit=100" });
    expect(listedA.body.items.some((i: { id: string }) => i.id === approval.id)).toBe(true);

    for (const token of [tokens.bOperator, tokens.bAdmin]) {
      const refused = await callRoute(decisionRoute.POST, { method: "POST", token, params: { id: approval.id }, body: { decision: "approve" } });
      expect(refused).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    }
    await expectUntouched(approval);

    const decided = await callRoute(decisionRoute.POST, { method: "POST", token: tokens.aOperator, params: { id: approval.id }, body: { decision: "deny", reason: "no" } });
    expect(decided).toMatchObject({ status: 200, body: { status: "denied", decidedBy: "token:ann", decidedVia: "api" } });
  });

  test("the dashboard's decide (an operator of B, even choosing always allow) is a 404 on A's approval", async () => {
    const approval = await ask(runs.a);
    const bOperator = personIn("operator", project.b, "bea@example.com");
    for (const input of [{ decision: "approve" as const }, { decision: "approve" as const, alwaysAllow: true }]) {
      const refusal = await decideApproval(t.db, await deciderOf(t.db, bOperator, "dashboard"), approval.id, input).catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(AppError);
      expect((refusal as AppError).status).toBe(404);
    }
    await expectUntouched(approval);
  });

  test("a Slack click by someone outside the approval's project decides nothing; a member's does", async () => {
    const approval = await ask(runs.a);
    // What the message's button carries (slack-button-value.ts), not a decision link.
    const value = slackButtonValue({ approvalId: approval.id, runId: approval.runId, decision: "approve", recipient: "slack:C0OPS", inputHash: toolInputHash(approval.toolInput), expiresAt: linkExpiry(approval) });
    expect((await slackClick(value, "UBEA0001")).status).toBe(200);
    await expect.poll(() => slack.requests.filter((r) => r.url === "/respond/UBEA0001").length).toBe(1);
    expect(JSON.parse(slack.requests.find((r) => r.url === "/respond/UBEA0001")!.body).text).toBe(
      "You (bea@example.com) are not a member of the project this approval belongs to, so nothing was decided.",
    );
    await expectUntouched(approval);

    expect((await slackClick(value, "UANN0001")).status).toBe(200);
    expect(await getApprovalInAnyProject(t.db, { id: approval.id })).toMatchObject({ status: "approved", decidedBy: "ann@example.com", decidedVia: "slack" });
  });

  test("a decision link stays bound to its approval: another run's claims are 404, a recipient without a role there is 403", async () => {
    const approval = await ask(runs.a, { roles: ["operator"] });
    // A's approval id with B's run: not a link this server made for anything.
    const crossed = await openLink(linkFor(approval, "user:bea@example.com", runs.b));
    expect(crossed.status).toBe(404);
    // Bea is an operator, but in beta: in alpha she has no role, so she is not among "any operator".
    const beas = await openLink(linkFor(approval, "user:bea@example.com"));
    expect(beas.status).toBe(403);
    expect(beas.html).toContain("Only any operator may decide this approval");
    await expectUntouched(approval);
    // Ann, an operator of alpha, may.
    expect((await openLink(linkFor(approval, "user:ann@example.com"))).status).toBe(200);
  });
});

describe("alerts", () => {
  test("a rule measures its own project; another project's rule is a 404 and stays as it was", async () => {
    const admin = (p: { id: string; slug: string }) => personIn("admin", p, `admin@${p.slug}.example.com`);
    const input = alertRuleSchema.parse({ name: "failures", kind: "runs_failed", windowMinutes: 60, threshold: 0, cooldownMinutes: 10, targets: [] });
    const ruleA = await createAlertRuleAudited(t.db, admin(project.a), input, undefined);
    // The same name in another project is another rule.
    const ruleB = await createAlertRuleAudited(t.db, admin(project.b), input, undefined);

    const agentB = (await getApprovalInAnyProject(t.db, { id: (await ask(runs.b)).id }))!.agentId;
    for (let i = 0; i < 3; i++) {
      const run = await createRun(t.db, { projectId: project.b.id, agentId: agentB, prompt: "fails", source: "test" });
      await finishRun(t.db, { id: run.id, outcome: "failed", reason: "boom" });
    }
    const now = new Date(Date.now() + 1000);
    const rowA = (await getAlertRule(t.db, { projectId: project.a.id, id: ruleA.id }))!;
    const rowB = (await getAlertRule(t.db, { projectId: project.b.id, id: ruleB.id }))!;
    expect(await measureAlert(t.db, rowA, now)).toBe(0);
    expect(await measureAlert(t.db, rowB, now)).toBe(3);

    expect(await getAlertRule(t.db, { projectId: project.b.id, id: ruleA.id })).toBeUndefined();
    expect(await callRoute(alertRoute.GET, { token: tokens.bAdmin, params: { id: ruleA.id } })).toMatchObject({ status: 404 });
    expect(await callRoute(alertRoute.PATCH, { method: "PATCH", token: tokens.bAdmin, params: { id: ruleA.id }, body: { threshold: 99 } })).toMatchObject({ status: 404 });
    expect(await callRoute(alertRoute.DELETE, { method: "DELETE", token: tokens.bAdmin, params: { id: ruleA.id } })).toMatchObject({ status: 404 });
    expect(await getAlertRule(t.db, { projectId: project.a.id, id: ruleA.id })).toEqual(rowA);
    const listedB = await callRoute(alertsRoute.GET, { token: tokens.bAdmin });
    expect(listedB.body.items.map((r: { id: string }) => r.id)).toEqual([ruleB.id]);
  });
});
