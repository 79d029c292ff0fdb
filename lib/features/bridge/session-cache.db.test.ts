/**
 * A bridged session's calls decided on what the process remembers of it (session-cache.ts, issue
 * 26): after its first call a tool call is one statement, its write, which checks what the call was
 * decided on. Tried from each side where the memory goes stale, the answer and the record are what
 * a fresh read would have given, and a stale attempt leaves nothing behind:
 * - the run cancelled from the dashboard, or finished (its session ended, or changed by hand);
 * - the agent renamed, or given a budget, or a budget per person;
 * - a hook that waits for a person added to the chain;
 * - many calls of one session at once.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent, updateAgent } from "@/db/queries/agents";
import { createHook, deleteHook } from "@/db/queries/hooks";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import type { Principal } from "@/lib/platform/auth/roles";
import { cancelRun } from "@/lib/features/runs/run-service";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPersonToken, addToken } from "@/test/people";
import { INGEST_ROUTES } from "./ingest-routes";
import { settleRateLimitLeases } from "@/lib/features/hooks/rate-limit-leases";

let t: TestDatabase;
let operator: string;
/** Every statement sent, on PostgreSQL (PGlite's driver reports none). */
const sent: string[] = [];

const admin: Principal = { kind: "user", id: "admin", label: "admin@example.com", role: "admin", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: false };

beforeAll(async () => {
  t = await createTestDatabase({ onStatement: (text) => sent.push(text) });
  installDatabase(t);
  operator = (await addPersonToken(t.db, { role: "operator", name: "bridge" })).token;
});
afterAll(async () => {
  await t?.drop();
});

async function newAgent(name: string): Promise<string> {
  const agent = await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name }) });
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: `${name}-no-prod`, scope: `agent:${agent!.id}`, event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "prod is off-limits", denyIf: "/srv/prod" } }),
    actor: "test",
  });
  return agent!.id;
}

function claude(agent: string, body: Record<string, unknown>) {
  return callRoute(INGEST_ROUTES["claude-code"], { method: "POST", token: operator, headers: { "x-hookplane-agent": agent }, body });
}
const start = (agent: string, sessionId: string) => claude(agent, { session_id: sessionId, hook_event_name: "SessionStart", source: "startup" });
const pre = (agent: string, sessionId: string, command: string, id: string) =>
  claude(agent, { session_id: sessionId, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: id });
const decision = (res: { status: number; body: { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } } }) =>
  res.status === 200 ? (res.body.hookSpecificOutput?.permissionDecision ?? "allow") : `HTTP ${res.status}`;

async function runsOf(sessionId: string) {
  return (await t.execute("select id, status, outcome from runs where external_session_id = $1 order by created_at", [sessionId])).rows as { id: string; status: string; outcome: string | null }[];
}
async function eventTypes(runId: string) {
  return (await listRunEventsAfter(t.db, { runId, after: 0, limit: 1000 })).map((e) => e.type);
}

test("after its first call, a session's tool call is one statement: its write, with the guard's row at its seq", async () => {
  await newAgent("one-statement");
  expect((await start("one-statement", "s-one")).status).toBe(200);
  expect(decision(await pre("one-statement", "s-one", "echo warm", "w0"))).toBe("allow");
  sent.length = 0;
  for (let i = 0; i < 5; i++) expect(decision(await pre("one-statement", "s-one", i === 3 ? "cat /srv/prod/x" : `echo ${i}`, `c${i}`))).toBe(i === 3 ? "deny" : "allow");
  if (t.kind === "postgres") {
    // No read of the agent, the run or the chain: one query a call, its write (the NOTIFY after it joins its group).
    expect(sent).toHaveLength(5);
    expect(sent.every((s) => s.includes('"type":"tool.pre"'))).toBe(true);
  }
  const [run] = await runsOf("s-one");
  expect(await eventTypes(run.id)).toEqual(["session.start", "tool.pre", "tool.pre", "tool.pre", "tool.pre", "tool.pre", "loop.tool_denied", "tool.pre"]);
  const ledger = await listRunHookInvocations(t.db, { runId: run.id });
  const events = await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 100 });
  for (const e of events.filter((e) => e.type === "tool.pre")) {
    expect(ledger.filter((r) => r.eventSeq === e.seq).map((r) => r.verdict)).toEqual([String((e.data.toolInput as { command: string }).command).includes("/srv/prod") ? "block" : "allow"]);
  }
});

test("a run cancelled from the dashboard, or finished by hand, is seen by the next call; the stale attempt writes nothing", async () => {
  await newAgent("cancelled");
  await start("cancelled", "s-cancel");
  expect(decision(await pre("cancelled", "s-cancel", "echo 1", "c1"))).toBe("allow");
  const [run] = await runsOf("s-cancel");
  await cancelRun(t.db, admin, run.id);
  const refused = await pre("cancelled", "s-cancel", "echo 2", "c2");
  expect(decision(refused)).toBe("deny");
  expect(refused.body.hookSpecificOutput?.permissionDecisionReason).toBe("This session was cancelled in Hookplane");
  // The call after the cancel is not recorded as made: the session ended, cancelled, instead.
  expect(await eventTypes(run.id)).toEqual(["session.start", "tool.pre", "session.end"]);
  expect(await runsOf("s-cancel")).toEqual([{ id: run.id, status: "finished", outcome: "cancelled" }]);

  await start("cancelled", "s-by-hand");
  expect(decision(await pre("cancelled", "s-by-hand", "echo 1", "c1"))).toBe("allow");
  const [byHand] = await runsOf("s-by-hand");
  await t.execute("update runs set status = 'finished', outcome = 'budget', reason = 'set by hand' where id = $1", [byHand.id]);
  expect(decision(await pre("cancelled", "s-by-hand", "echo 2", "c2"))).toBe("deny");
  expect(await eventTypes(byHand.id)).toEqual(["session.start", "tool.pre"]);
});

test("a session that ended is not written to by a call decided on its memory: the call goes where a fresh read sends it", async () => {
  await newAgent("ended");
  await start("ended", "s-ended");
  expect(decision(await pre("ended", "s-ended", "echo 1", "c1"))).toBe("allow");
  expect((await claude("ended", { session_id: "s-ended", hook_event_name: "SessionEnd", reason: "other" })).status).toBe(200);
  expect(decision(await pre("ended", "s-ended", "echo 2", "c2"))).toBe("allow");
  const runs = await runsOf("s-ended");
  // As without the memory: the ended run keeps its record, and the late call starts the session's next run.
  expect(runs.map((r) => r.status)).toEqual(["finished", "running"]);
  expect(await eventTypes(runs[0].id)).toEqual(["session.start", "tool.pre", "session.end"]);
  expect(await eventTypes(runs[1].id)).toEqual(["tool.pre"]);
});

test("an agent renamed, or given a budget or a budget per person, applies to the very next call", async () => {
  const id = await newAgent("renamed");
  await start("renamed", "s-agent");
  expect(decision(await pre("renamed", "s-agent", "echo 1", "c1"))).toBe("allow");
  const [run] = await runsOf("s-agent");
  await updateAgent(t.db, { projectId: DEFAULT_PROJECT_ID, id, patch: { name: "renamed-later" } });
  // The old name names no agent now: refused, and nothing recorded.
  expect(decision(await pre("renamed", "s-agent", "echo 2", "c2"))).toBe("HTTP 404");
  expect(await eventTypes(run.id)).toEqual(["session.start", "tool.pre"]);
  expect(decision(await pre("renamed-later", "s-agent", "echo 3", "c3"))).toBe("allow");
  expect(await eventTypes(run.id)).toEqual(["session.start", "tool.pre", "tool.pre"]);

  // A budget the run has reached (it cost nothing: a budget of 0): the next call ends the session.
  await updateAgent(t.db, { projectId: DEFAULT_PROJECT_ID, id, patch: { budgetUsd: 0 } });
  const over = await pre("renamed-later", "s-agent", "echo 4", "c4");
  expect(decision(over)).toBe("deny");
  expect(over.body.hookSpecificOutput?.permissionDecisionReason).toMatch(/reached its budget/);
  expect(await runsOf("s-agent")).toEqual([{ id: run.id, status: "finished", outcome: "budget" }]);

  // A budget per person of 0, on a new session: each of its gated steps is refused, and recorded as refused.
  await updateAgent(t.db, { projectId: DEFAULT_PROJECT_ID, id, patch: { budgetUsd: undefined, dailyBudgetPerPersonUsd: 0 } });
  await start("renamed-later", "s-person");
  const refused = await pre("renamed-later", "s-person", "echo 5", "c5");
  expect(decision(refused)).toBe("deny");
  expect(refused.body.hookSpecificOutput?.permissionDecisionReason).toMatch(/daily budget per person of \$0/);
  const [personal] = await runsOf("s-person");
  expect(await eventTypes(personal.id)).toEqual(["session.start", "tool.pre", "loop.tool_denied"]);
});

test("a hook that waits for a person, added to the chain, holds the next call", async () => {
  const id = await newAgent("approval");
  await start("approval", "s-approve");
  expect(decision(await pre("approval", "s-approve", "echo 1", "c1"))).toBe("allow");
  const hook = await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "ask-first", scope: `agent:${id}`, event: "tool.pre", matcher: "Bash", action: { type: "approve", timeoutMs: 300, onTimeout: "deny" } }),
    actor: "test",
  });
  const held = await pre("approval", "s-approve", "echo 2", "c2");
  expect(decision(held)).toBe("deny");
  const [run] = await runsOf("s-approve");
  // Recorded before it was decided, as such a chain is: asked, then (its timeout) denied and settled.
  let types = await eventTypes(run.id);
  for (let i = 0; i < 50 && types.length < 6; i++) {
    await new Promise((r) => setTimeout(r, 20));
    types = await eventTypes(run.id);
  }
  expect(types.slice(0, 4)).toEqual(["session.start", "tool.pre", "tool.pre", "approval.requested"]);
  expect(types.slice(4).sort()).toEqual(["approval.settled", "loop.tool_denied"]);
  const [{ n }] = (await t.execute("select count(*)::integer as n from approvals where run_id = $1", [run.id])).rows as { n: number }[];
  expect(n).toBe(1);
  await deleteHook(t.db, { projectId: DEFAULT_PROJECT_ID, id: hook!.id });
  expect(decision(await pre("approval", "s-approve", "echo 3", "c3"))).toBe("allow");
});

test("40 calls of one remembered session at once: each recorded once, seqs gapless, each denial after its call", async () => {
  await newAgent("many");
  await start("many", "s-many");
  expect(decision(await pre("many", "s-many", "echo warm", "w"))).toBe("allow");
  const calls = await Promise.all(Array.from({ length: 40 }, (_, i) => pre("many", "s-many", i % 5 === 4 ? `cat /srv/prod/${i}` : `echo ${i}`, `m${i}`)));
  expect(calls.map(decision)).toEqual(Array.from({ length: 40 }, (_, i) => (i % 5 === 4 ? "deny" : "allow")));
  const [run] = await runsOf("s-many");
  const events = await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 1000 });
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 2 + 40 + 8 }, (_, i) => i + 1));
  for (const e of events.filter((e) => e.type === "loop.tool_denied")) {
    const before = events.find((x) => x.seq === e.seq - 1)!;
    expect(before).toMatchObject({ type: "tool.pre", data: { toolCallId: e.data.toolCallId } });
  }
  const [{ last_seq }] = (await t.execute("select last_seq from runs where id = $1", [run.id])).rows as { last_seq: number }[];
  expect(last_seq).toBe(50);
});

test("another credential's call with a remembered session's id is not decided on its memory: it gets its own run", async () => {
  await newAgent("shared-id");
  await start("shared-id", "s-shared");
  expect(decision(await pre("shared-id", "s-shared", "echo mine", "c1"))).toBe("allow");
  const other = (await addPersonToken(t.db, { role: "operator", name: "someone else" })).token;
  const theirs = await callRoute(INGEST_ROUTES["claude-code"], {
    method: "POST",
    token: other,
    headers: { "x-hookplane-agent": "shared-id" },
    body: { session_id: "s-shared", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "echo theirs" }, tool_use_id: "c2" },
  });
  expect(decision(theirs)).toBe("allow");
  const runs = await runsOf("s-shared");
  expect(runs).toHaveLength(2);
  expect(await eventTypes(runs[0].id)).toEqual(["session.start", "tool.pre"]);
  expect(await eventTypes(runs[1].id)).toEqual(["tool.pre"]);
});

test("a call decided on memory that could not be written is decided again: a limit counts it once", async () => {
  const agentId = await newAgent("limited-memory");
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "memory-limit", scope: `agent:${agentId}`, event: "tool.pre", matcher: "Bash", action: { type: "limit", max: 100, windowMs: 60_000, per: "session" } }),
    actor: "test",
  });
  await start("limited-memory", "s-limit-stale");
  expect(decision(await pre("limited-memory", "s-limit-stale", "echo 1", "l1"))).toBe("allow");
  const [run] = await runsOf("s-limit-stale");
  // Finished by hand: the next call, decided on memory (its limit spends a token), finds it gone at its write.
  await t.execute("update runs set status = 'finished', outcome = 'budget', reason = 'set by hand' where id = $1", [run.id]);
  expect(decision(await pre("limited-memory", "s-limit-stale", "echo 2", "l2"))).toBe("deny");
  await settleRateLimitLeases(t.db);
  const [{ hits }] = (await t.execute("select coalesce(sum(hits), 0)::integer as hits from rate_limit_buckets where key = $1", [`agent:${agentId}/memory-limit/run:${run.id}`])).rows as { hits: number }[];
  expect(hits).toBe(1);
});

test("a session's end finishes its run in the commit that records it: with the end event, or with the end hooks' ledger rows", async () => {
  const withEndHook = await newAgent("ends-logged");
  await createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ id: "ends-logged-log", scope: `agent:${withEndHook}`, event: "session.end", action: { type: "log" } }), actor: "test" });
  await newAgent("ends-plain");
  for (const [agent, sessionId, endHooks] of [["ends-plain", "s-end-plain", 0], ["ends-logged", "s-end-logged", 1]] as const) {
    await start(agent, sessionId);
    expect(decision(await pre(agent, sessionId, "echo 1", "c1"))).toBe("allow");
    sent.length = 0;
    const end = await claude(agent, { session_id: sessionId, hook_event_name: "SessionEnd", reason: "logout" });
    expect(end.status).toBe(200);
    if (t.kind === "postgres") {
      // The read of the session, then one group: the end event (and, with an end hook, its own
      // write first: the hook's row follows it), the run finished in the same transaction.
      // (A statement's PREPARE on a connection that has not run it yet is not a round trip of the call's.)
      const queries = sent.filter((text) => !text.startsWith("prepare "));
      expect(queries).toHaveLength(2 + endHooks);
      const last = queries.at(-1)!;
      expect(last).toMatch(/execute hp_group_\d+.*;\s*execute hp_group_\d+/is);
      expect(last).toContain(endHooks ? '"event":"session.end"' : '"type":"session.end"');
      expect(last).toContain("before anyone decided");
    }
    const [run] = await runsOf(sessionId);
    expect(run).toMatchObject({ status: "finished", outcome: "completed" });
    expect(await eventTypes(run.id)).toEqual(["session.start", "tool.pre", "session.end"]);
    const ledger = await listRunHookInvocations(t.db, { runId: run.id });
    expect(ledger.filter((r) => r.event === "session.end").map((r) => [r.hookKey, r.eventSeq])).toEqual(endHooks ? [["ends-logged-log", 3]] : []);
  }
});
