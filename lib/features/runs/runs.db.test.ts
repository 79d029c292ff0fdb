import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getApprovalInAnyProject, listApprovals } from "@/db/queries/approvals";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { callRoute } from "@/test/api-client";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";

import { cancelRun, startRun } from "./run-service";
import { addAgent, createRunHarness, expectWellFormedStream, operator, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";
import { setEnv } from "@/test/config-env";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { addPerson, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";

let h: RunHarness;
let operatorToken: string;

beforeAll(async () => {
  // These runs use the shell tool: running code is on (an admin's agents, through the sandbox).
  setEnv({ HOOKPLANE_ALLOW_CODE_EXECUTION: "1" });
  h = await createRunHarness();
  await addPerson(h.t.db, { email: "admin@example.com", passwordHash: await hashPassword("long enough"), role: "admin", instanceAdmin: true });
  operatorToken = (await addToken(h.t.db, { name: "ops", role: "operator" })).token;
});
afterAll(async () => {
  setEnv({ HOOKPLANE_ALLOW_CODE_EXECUTION: undefined });
  await h.close();
});

const shellTurn = (command: string) => ({ text: "running a command", toolCalls: [{ name: "shell", input: { command } }], usage: { inputTokens: 100, outputTokens: 20 } });

test("a tool.pre guard blocks a shell call: the command never runs and the model is told why", async () => {
  const agent = await addAgent(
    h.t,
    { name: "guarded", tools: ["shell"], script: [shellTurn("touch blocked-marker"), { text: "ok, I will not", usage: { inputTokens: 150, outputTokens: 10 } }] },
    [{ id: "no-marker", event: "tool.pre", matcher: "shell", action: { type: "block", reason: "markers are forbidden", denyIf: "marker" } }],
  );
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "make a marker" });
  const done = await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(done.outcome).toBe("completed");
  expect(done.response).toBe("ok, I will not");
  expect(done.blocked).toBe(true);
  expect(done.toolsUsed).toEqual(["shell"]);
  expect(existsSync(path.join(h.workspacesDir, run.id, "blocked-marker"))).toBe(false);

  const events = await runEvents(h.t, run.id);
  expectWellFormedStream(events);
  const reminders = events.filter((e) => e.type === "loop.reminders").map((e) => JSON.stringify(e.data));
  expect(reminders.join(" ")).toContain("markers are forbidden");
  // Cost: 250 input + 30 output tokens of `scripted` at $1/$2 per million.
  expect(done.costUsd).toBeCloseTo((250 * 1 + 30 * 2) / 1e6, 12);
  const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
  const blocked = ledger.find((l) => l.hookKey === "no-marker" && l.verdict === "block");
  expect(blocked?.reason).toContain("markers are forbidden");
  expect(events.find((e) => e.seq === blocked?.eventSeq)?.type).toBe("tool.pre");
});

test("an approval approved through the API lets the tool run, with who decided recorded", async () => {
  const agent = await addAgent(
    h.t,
    { name: "asks-first", tools: ["shell"], script: [shellTurn("touch approved-marker"), { text: "done" }] },
    [{ id: "ask", event: "tool.pre", matcher: "shell", action: { type: "approve", timeoutMs: 60_000, onTimeout: "deny" } }],
  );
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "go" });
  await waitForRun(h.t, run.id, (r) => r.status === "waiting_approval");
  const [pending] = await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 10 });
  expect(pending.runId).toBe(run.id);
  expect(pending.toolName).toBe("shell");

  const decided = await callRoute(decisionRoute.POST, {
    method: "POST",
    token: operatorToken,
    params: { id: pending.id },
    body: { decision: "approve", reason: "looks safe" },
  });
  expect(decided.status).toBe(200);
  expect(decided.body).toMatchObject({ status: "approved", decidedBy: "token:ops", decidedVia: "api", reason: "looks safe" });
  const again = await callRoute(decisionRoute.POST, { method: "POST", token: operatorToken, params: { id: pending.id }, body: { decision: "deny" } });
  expect(again.status).toBe(409);

  const done = await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(done.outcome).toBe("completed");
  expect(existsSync(path.join(h.workspacesDir, run.id, "approved-marker"))).toBe(true);
  const events = await runEvents(h.t, run.id);
  expectWellFormedStream(events);
  const types = events.map((e) => e.type);
  expect(types.indexOf("approval.requested")).toBeLessThan(types.indexOf("approval.settled"));
  expect(types.indexOf("approval.settled")).toBeLessThan(types.indexOf("tool.post"));
});

test("an approval nobody answers times out under its policy, recorded as a timeout", async () => {
  const agent = await addAgent(
    h.t,
    { name: "times-out", tools: ["shell"], script: [shellTurn("touch late-marker"), { text: "gave up" }] },
    [{ id: "slow-ask", event: "tool.pre", action: { type: "approve", timeoutMs: 400, onTimeout: "deny" } }],
  );
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "go" });
  const done = await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(done.outcome).toBe("completed");
  expect(existsSync(path.join(h.workspacesDir, run.id, "late-marker"))).toBe(false);
  const [approval] = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 50 })).filter((a) => a.runId === run.id);
  // With its reason and the run's events beside it: an approval ended otherwise says by what (it
  // was seen abandoned once on a loaded CI machine, and the status alone did not say why).
  const events = await runEvents(h.t, run.id);
  expect({ status: approval.status, reason: approval.reason, events: events.map((e) => e.type) }).toMatchObject({ status: "timed_out" });
  expect(approval.decidedBy).toBeNull();
  const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
  expect(ledger.find((l) => l.hookKey === "slow-ask")?.approval).toMatchObject({ timedOut: true, decision: "deny" });
  expectWellFormedStream(events);
});

test("a run over its budget stops with outcome budget", async () => {
  const agent = await addAgent(h.t, {
    name: "spender",
    tools: ["shell"],
    budgetUsd: 0.001,
    script: [shellTurn("true"), shellTurn("true"), { text: "never reached" }].map((turn) => ({ ...turn, usage: { inputTokens: 1_000, outputTokens: 1_000 } })),
  });
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "spend" });
  const done = await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(done.outcome).toBe("budget");
  expect(done.costUsd).toBeGreaterThan(0.001);
  const events = await runEvents(h.t, run.id);
  expectWellFormedStream(events);
  expect(events.at(-1)?.data).toMatchObject({ outcome: "budget" });
});

test("a daily budget stops new runs with a clear reason", async () => {
  const agent = await addAgent(h.t, { name: "daily-capped", dailyBudgetUsd: 0.0000001, script: [{ text: "hi", usage: { inputTokens: 1000, outputTokens: 1000 } }] });
  const first = await startRun(h.t.db, operator, { agent: agent.name, prompt: "one" });
  await waitForRun(h.t, first.id, (r) => r.status === "finished");
  await expect(startRun(h.t.db, operator, { agent: agent.name, prompt: "two" })).rejects.toMatchObject({
    status: 409,
    message: expect.stringContaining("daily budget"),
  });
});

test("cancelling a run mid-tool ends it as cancelled, session.end once", async () => {
  const agent = await addAgent(h.t, { name: "sleeper", tools: ["shell"], script: [shellTurn("sleep 20"), { text: "woke" }] });
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "sleep" });
  await expect.poll(async () => (await runEvents(h.t, run.id)).some((e) => e.type === "tool.pre"), { timeout: 10_000 }).toBe(true);
  await cancelRun(h.t.db, operator, run.id);
  const done = await waitForRun(h.t, run.id, (r) => r.status === "finished", 10_000);
  expect(done.outcome).toBe("cancelled");
  expectWellFormedStream(await runEvents(h.t, run.id));
});

test("a parked approval survives a worker restart and resumes on the decision", async () => {
  await h.restartQueue({ approvalHoldMs: 150 });
  const agent = await addAgent(
    h.t,
    { name: "parks", tools: ["shell"], script: [shellTurn("touch resumed-marker"), { text: "resumed fine" }] },
    [{ id: "park-ask", event: "tool.pre", action: { type: "approve", timeoutMs: 600_000, onTimeout: "deny" } }],
  );
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "go" });
  await waitForRun(h.t, run.id, (r) => r.status === "waiting_approval" && r.leaseOwner === null);
  const [pending] = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 50 })).filter((a) => a.runId === run.id);

  // Parked means parked: sweeps come and go without re-running it while the approval is pending.
  const eventsWhenParked = (await runEvents(h.t, run.id)).length;
  await new Promise((r) => setTimeout(r, 1_000));
  expect((await runEvents(h.t, run.id)).length).toBe(eventsWhenParked);

  // The server goes away and comes back; the pending approval is still there.
  await h.restartQueue({ approvalHoldMs: 150 });
  expect((await getApprovalInAnyProject(h.t.db, { id: pending.id }))?.status).toBe("pending");

  const decidedAt = Date.now();
  const decided = await callRoute(decisionRoute.POST, { method: "POST", token: operatorToken, params: { id: pending.id }, body: { decision: "approve" } });
  expect(decided.status).toBe(200);
  const done = await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(done.outcome).toBe("completed");
  expect(done.response).toBe("resumed fine");
  expect(Date.now() - decidedAt).toBeLessThan(10_000);
  expect(existsSync(path.join(h.workspacesDir, run.id, "resumed-marker"))).toBe(true);
  const events = await runEvents(h.t, run.id);
  expectWellFormedStream(events);
  expect(events.filter((e) => e.type === "session.start")).toHaveLength(1);
  expect(events.filter((e) => e.type === "tool.post")).toHaveLength(1);
});

test("cost totals per agent, model and day add up to the runs' costs", async () => {
  const { GET } = await import("@/app/api/v1/costs/route");
  const res = await callRoute(GET, { token: operatorToken, path: "/api/v1/costs" });
  expect(res.status).toBe(200);
  const { rows } = await h.t.execute("select coalesce(sum(cost_usd), 0)::float8 as total from runs");
  const total = Number(rows[0].total);
  expect(total).toBeGreaterThan(0);
  const sum = (items: { costUsd: number }[]) => items.reduce((s, i) => s + i.costUsd, 0);
  expect(sum(res.body.byAgent)).toBeCloseTo(total, 9);
  expect(sum(res.body.byDay)).toBeCloseTo(total, 9);
  expect(sum(res.body.byModel)).toBeCloseTo(total, 9);
  expect(res.body.byModel.map((m: { model: string }) => m.model)).toEqual(["scripted"]);
  expect(res.body.topRuns[0].costUsd).toBeGreaterThanOrEqual(res.body.topRuns.at(-1).costUsd);
  const capped = res.body.budgets.find((b: { agentName: string }) => b.agentName === "daily-capped");
  expect(capped.spentTodayUsd).toBeGreaterThan(capped.dailyBudgetUsd);
});

test("a run whose events cannot be recorded is failed after a few attempts, not resumed forever", async () => {
  const agent = await addAgent(h.t, { name: "poisoned", script: [{ text: "never recorded" }] });
  const { createRun } = await import("@/db/queries/runs");
  const run = await createRun(h.t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "x", source: "test" });
  // Every append of this run's events fails (a trigger refusing them: the database's unique index
  // on (run_id, seq, ts) no longer catches a stray seq, run_events being partitioned by time).
  await h.t.execute(`create function poison_run_events() returns trigger language plpgsql as $$
    begin if new.run_id = '${run.id}' then raise exception 'poisoned run'; end if; return new; end $$`);
  await h.t.execute("create trigger poison_run_events before insert on run_events for each row execute function poison_run_events()");
  try {
    await h.queue.enqueue(run.id);
    const done = await waitForRun(h.t, run.id, (r) => r.status === "finished", 30_000);
    expect(done.outcome).toBe("failed");
    expect(done.reason).toMatch(/gave up after 5 attempts that could not be recorded: .*poisoned run/);
    expect(done.failures).toBe(5);
  } finally {
    await h.t.execute("drop trigger poison_run_events on run_events");
  }
});

test("a call that waited for a person in a suspended run and was denied gives its limit token back: the next run's call is let through", async () => {
  // Runs park (suspend) after 150 ms of waiting: the decision comes in another dispatch.
  await h.restartQueue({ approvalHoldMs: 150 });
  const agent = await addAgent(
    h.t,
    { name: "limited-asker", tools: ["shell"], script: [shellTurn("true"), { text: "done" }] },
    [
      { id: "one-an-hour", event: "tool.pre", matcher: "shell", action: { type: "limit", max: 1, windowMs: 3_600_000, per: "agent" } },
      { id: "ask-lead", event: "tool.pre", matcher: "shell", action: { type: "approve", timeoutMs: 600_000, onTimeout: "deny" } },
    ],
  );
  const decide = async (runId: string, decision: "approve" | "deny") => {
    await waitForRun(h.t, runId, (r) => r.status === "waiting_approval" && r.leaseOwner === null);
    const pending = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 50 })).find((a) => a.runId === runId)!;
    expect((await callRoute(decisionRoute.POST, { method: "POST", token: operatorToken, params: { id: pending.id }, body: { decision } })).status).toBe(200);
    return waitForRun(h.t, runId, (r) => r.status === "finished");
  };
  const limitRows = async (runId: string) => (await listRunHookInvocations(h.t.db, { runId })).filter((l) => l.hookKey === "one-an-hour").map((l) => [l.verdict, l.reason]);

  const first = await startRun(h.t.db, operator, { agent: agent.name, prompt: "deploy" });
  await decide(first.id, "deny");
  expect(await limitRows(first.id)).toEqual([["allow", "1 of 1 in 1 h for agent limited-asker"]]);
  const asked = (await listRunHookInvocations(h.t.db, { runId: first.id })).find((l) => l.hookKey === "ask-lead");
  expect(asked).toMatchObject({ verdict: "block" });
  expect(asked?.reason).toContain("(given back: the limit token this call spent before it waited)");

  // The denied call did not go through: the hour's one call is still there to take, and an approved one keeps it.
  const second = await startRun(h.t.db, operator, { agent: agent.name, prompt: "deploy again" });
  await decide(second.id, "approve");
  expect(await limitRows(second.id)).toEqual([["allow", "1 of 1 in 1 h for agent limited-asker"]]);
  const third = await startRun(h.t.db, operator, { agent: agent.name, prompt: "and again" });
  const refused = await waitForRun(h.t, third.id, (r) => r.status === "finished");
  expect(refused.blocked).toBe(true);
  expect((await limitRows(third.id))[0]).toEqual(["block", expect.stringContaining("Rate limit: 1 calls per 1 h for agent limited-asker")]);
});
