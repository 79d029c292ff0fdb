/**
 * Waiting for a person is a state of the run, not an error: a parked approval leaves exactly one
 * tool.pre, one ledger row for the approve hook that reads pending → decided (who, when, through
 * what), hooks on approval.requested / approval.settled run, and a run that ends while it waits
 * abandons the approval (no false "denied", no late decision).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getApprovalInAnyProject, listApprovals } from "@/db/queries/approvals";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";
import { callRoute } from "@/test/api-client";
import { addPerson, addToken } from "@/test/people";
import { json, startServer, type LocalServer } from "@/lib/core/hooks/testing/fakes";
import { cancelRun, startRun } from "../runs/run-service";
import { addAgent, createRunHarness, expectWellFormedStream, operator, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";
import { setEnv } from "@/test/config-env";

let h: RunHarness;
let operatorToken: string;
let listener: LocalServer;
const previousAllow = process.env.HOOKPLANE_ALLOW_PRIVATE_HOSTS;

beforeAll(async () => {
  // Parks after 150 ms: every approval below is decided while its run is suspended, worker slot free.
  h = await createRunHarness({ approvalHoldMs: 150 });
  await addPerson(h.t.db, { email: "admin@example.com", instanceAdmin: true });
  operatorToken = (await addToken(h.t.db, { name: "ops", role: "operator" })).token;
  listener = await startServer((_req, res) => json(res, 200, { ok: true }));
  setEnv({ HOOKPLANE_ALLOW_PRIVATE_HOSTS: "127.0.0.1" });
});
afterAll(async () => {
  await h.close();
  await listener.close();
  setEnv({ HOOKPLANE_ALLOW_PRIVATE_HOSTS: previousAllow });
});

const writeTurn = (file: string) => ({ text: "writing", toolCalls: [{ name: "write_file", input: { path: file, content: "x" } }], usage: { inputTokens: 10, outputTokens: 2 } });

/** An agent whose one write is gated by an approval, with a guard before it and notices around it. */
async function gatedAgent(name: string, file: string) {
  return addAgent(h.t, { name, tools: ["write_file"], script: [writeTurn(file), { text: "all done" }] }, [
    { id: "guard", event: "tool.pre", action: { type: "block", reason: "no secrets", denyIf: "secret" } },
    { id: "ask", event: "tool.pre", matcher: "write_file", action: { type: "approve", timeoutMs: 600_000, onTimeout: "deny" } },
    { id: "after-ask", event: "tool.pre", action: { type: "log" } },
    { id: "tell-slack", event: "approval.requested", action: { type: "webhook", url: `${listener.url}/requested` } },
    { id: "log-request", event: "approval.requested", action: { type: "log", message: "waiting for a person" } },
    { id: "log-settled", event: "approval.settled", action: { type: "log" } },
  ]);
}

async function parkedApproval(runId: string) {
  await waitForRun(h.t, runId, (r) => r.status === "waiting_approval" && r.leaseOwner === null);
  const mine = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 100 })).filter((a) => a.runId === runId);
  expect(mine).toHaveLength(1);
  return mine[0];
}

const decide = (id: string, decision: "approve" | "deny", reason?: string) =>
  callRoute(decisionRoute.POST, { method: "POST", token: operatorToken, params: { id }, body: { decision, ...(reason && { reason }) } });

function ledgerShape(rows: Awaited<ReturnType<typeof listRunHookInvocations>>) {
  return rows.map((r) => ({ hook: r.hookKey, event: r.event, matched: r.matched, verdict: r.verdict, failed: r.failed }));
}

test("parked, then approved: one tool.pre, one approve row pending → approved, notices fired, the write ran", async () => {
  const agent = await gatedAgent("asks-approve", "approved.txt");
  const requestsBefore = listener.requests.length;
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  const pending = await parkedApproval(run.id);

  // While it waits: the question is out (a webhook told someone), the approve hook has no row yet.
  await expect.poll(() => listener.requests.length - requestsBefore).toBe(1);
  const told = JSON.parse(listener.requests.at(-1)!.body);
  expect(told).toMatchObject({ event: "approval.requested", approvalId: pending.id, toolName: "write_file", toolInput: { path: "approved.txt", content: "x" } });
  const whileWaiting = await listRunHookInvocations(h.t.db, { runId: run.id });
  expect(whileWaiting.filter((r) => r.hookKey === "ask")).toEqual([]);
  expect(whileWaiting.find((r) => r.hookKey === "guard")).toMatchObject({ matched: true, verdict: "allow" });

  expect((await decide(pending.id, "approve", "fine by me")).status).toBe(200);
  const done = await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(done).toMatchObject({ outcome: "completed", response: "all done", blocked: false });
  expect(existsSync(path.join(h.workspacesDir, run.id, "approved.txt"))).toBe(true);

  const events = await runEvents(h.t, run.id);
  expectWellFormedStream(events);
  expect(events.map((e) => e.type).filter((t) => !t.startsWith("loop.reminders"))).toEqual([
    "session.start",
    "user.prompt.submit",
    "model.pre",
    "model.post",
    "tool.pre",
    "approval.requested",
    "loop.resumed",
    "approval.settled",
    "tool.post",
    "model.pre",
    "model.post",
    "turn.end",
    "session.end",
  ]);
  expect(events.find((e) => e.type === "approval.settled")?.data).toMatchObject({
    approvalId: pending.id,
    status: "approved",
    decision: "approve",
    decidedBy: "token:ops",
    decidedVia: "api",
    reason: "fine by me",
  });

  const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
  const toolPreSeq = events.find((e) => e.type === "tool.pre")!.seq;
  expect(ledgerShape(ledger.filter((r) => r.event === "tool.pre"))).toEqual([
    { hook: "guard", event: "tool.pre", matched: true, verdict: "allow", failed: false },
    { hook: "ask", event: "tool.pre", matched: true, verdict: "allow", failed: false },
    { hook: "after-ask", event: "tool.pre", matched: true, verdict: "allow", failed: false },
  ]);
  const ask = ledger.find((r) => r.hookKey === "ask")!;
  expect(ask.eventSeq).toBe(toolPreSeq);
  expect(ask.reason).toBe("approved by token:ops via api: fine by me");
  const approval = ask.approval as Record<string, unknown>;
  expect(approval).toMatchObject({ approvalId: pending.id, status: "approved", decision: "approve", decidedBy: "token:ops", decidedVia: "api", timedOut: false });
  expect(Date.parse(approval.decidedAt as string)).toBeGreaterThanOrEqual(Date.parse(approval.requestedAt as string));
  // The notices ran as hooks of their own events, each row pointing at its event.
  const requestedSeq = events.find((e) => e.type === "approval.requested")!.seq;
  const settledSeq = events.find((e) => e.type === "approval.settled")!.seq;
  expect(ledger.filter((r) => r.event === "approval.requested").map((r) => [r.hookKey, r.eventSeq, r.verdict])).toEqual([
    ["tell-slack", requestedSeq, "allow"],
    ["log-request", requestedSeq, "allow"],
  ]);
  expect(ledger.filter((r) => r.event === "approval.settled").map((r) => [r.hookKey, r.eventSeq, r.verdict])).toEqual([["log-settled", settledSeq, "allow"]]);
  expect(ledger.some((r) => r.failed)).toBe(false);
});

test("parked, then denied: the denial is the person's, the write never ran, no false failure", async () => {
  const agent = await gatedAgent("asks-deny", "denied.txt");
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  const pending = await parkedApproval(run.id);
  expect((await decide(pending.id, "deny", "not today")).status).toBe(200);
  const done = await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(done).toMatchObject({ outcome: "completed", blocked: true });
  expect(existsSync(path.join(h.workspacesDir, run.id, "denied.txt"))).toBe(false);

  const events = await runEvents(h.t, run.id);
  expectWellFormedStream(events);
  expect(events.filter((e) => e.type === "tool.pre")).toHaveLength(1);
  expect(events.filter((e) => e.type === "tool.post")).toHaveLength(0);
  expect(events.filter((e) => e.type === "loop.tool_denied").map((e) => e.data)).toEqual([
    { toolCallId: expect.any(String), toolName: "write_file", reason: "denied by token:ops via api: not today", by: "hook" },
  ]);
  const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
  expect(ledgerShape(ledger.filter((r) => r.event === "tool.pre"))).toEqual([
    { hook: "guard", event: "tool.pre", matched: true, verdict: "allow", failed: false },
    { hook: "ask", event: "tool.pre", matched: true, verdict: "block", failed: false },
    { hook: "after-ask", event: "tool.pre", matched: false, verdict: null, failed: false },
  ]);
  expect(ledger.find((r) => r.hookKey === "ask")?.approval).toMatchObject({ status: "denied", decidedBy: "token:ops", decidedVia: "api", reason: "not today" });
});

test("a cancel while parked abandons the approval: row reads abandoned, no denial, a late decision is 409", async () => {
  const agent = await gatedAgent("asks-cancel", "cancelled.txt");
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  const pending = await parkedApproval(run.id);
  await cancelRun(h.t.db, operator, run.id);
  const done = await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(done.outcome).toBe("cancelled");

  const approval = await getApprovalInAnyProject(h.t.db, { id: pending.id });
  expect(approval).toMatchObject({ status: "abandoned", decidedBy: null, decidedVia: "abandoned" });
  const late = await decide(pending.id, "approve");
  expect(late.status).toBe(409);
  expect(late.body.error.message).toMatch(/abandoned and can no longer be decided/);
  expect((await getApprovalInAnyProject(h.t.db, { id: pending.id }))?.status).toBe("abandoned");

  const events = await runEvents(h.t, run.id);
  expectWellFormedStream(events);
  const types = events.map((e) => e.type);
  expect(types.filter((t) => t === "tool.pre")).toHaveLength(1);
  expect(types).not.toContain("loop.tool_denied");
  expect(types).not.toContain("tool.post");
  expect(events.find((e) => e.type === "approval.settled")?.data).toMatchObject({ approvalId: pending.id, status: "abandoned" });
  expect(types.indexOf("approval.settled")).toBeLessThan(types.indexOf("session.end"));
  const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
  expect(ledgerShape(ledger.filter((r) => r.event === "tool.pre"))).toEqual([
    { hook: "guard", event: "tool.pre", matched: true, verdict: "allow", failed: false },
    { hook: "ask", event: "tool.pre", matched: true, verdict: null, failed: false },
    { hook: "after-ask", event: "tool.pre", matched: false, verdict: null, failed: false },
  ]);
  const ask = ledger.find((r) => r.hookKey === "ask")!;
  expect(ask.reason).toBe("abandoned: cancelled");
  expect(ask.approval).toMatchObject({ approvalId: pending.id, status: "abandoned" });
});

test("an approval decided while the run still holds its worker resumes at once, with no suspension", async () => {
  await h.restartQueue({ approvalHoldMs: 10_000 });
  try {
    const agent = await gatedAgent("asks-held", "held.txt");
    const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
    await waitForRun(h.t, run.id, (r) => r.status === "waiting_approval");
    const [pending] = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 100 })).filter((a) => a.runId === run.id);
    expect((await getApprovalInAnyProject(h.t.db, { id: pending.id }))?.status).toBe("pending");
    expect((await decide(pending.id, "approve")).status).toBe(200);
    await waitForRun(h.t, run.id, (r) => r.status === "finished");
    const types = (await runEvents(h.t, run.id)).map((e) => e.type);
    expect(types).not.toContain("loop.resumed");
    expect(types.filter((t) => t === "approval.settled")).toHaveLength(1);
    const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
    expect(ledger.filter((r) => r.hookKey === "ask").map((r) => r.verdict)).toEqual(["allow"]);
  } finally {
    await h.restartQueue({ approvalHoldMs: 150 });
  }
});
