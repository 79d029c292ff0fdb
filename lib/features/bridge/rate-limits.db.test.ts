/**
 * Rate limits per person (issue 27): a `limit` hook of 60 calls a minute, a person fanning out
 * 5 subagents of 20 calls each at once, through the ingest endpoint with their bridge credential:
 * exactly 60 go through, 40 are refused with the count, each refusal is recorded (a denial event
 * and a ledger row); another person has a window of their own. Underneath, the counter holds across
 * web processes: two database handles (two pools on PostgreSQL, as two processes have) taking from
 * one key at once never let more than `max` through between them.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase, openDatabase, type DbHandle } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { createHook } from "@/db/queries/hooks";
import { takeOne } from "@/test/rate-limit-take";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPerson, addToken } from "@/test/people";
import { INGEST_ROUTES } from "./ingest-routes";
import { ingestSessionEvent } from "./session-ingest";
import { settleRateLimitLeases } from "@/lib/features/hooks/rate-limit-leases";
import type { Principal } from "@/lib/platform/auth/roles";

let t: TestDatabase;
let second: DbHandle | undefined;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  // A second web process's own pool on the same PostgreSQL database; PGlite has one process.
  if (t.databaseUrl) second = await openDatabase({ databaseUrl: t.databaseUrl });
});
afterAll(async () => {
  await second?.close();
  await t?.drop();
});

test("two processes taking from one window at once never let more than max through between them", async () => {
  const handles = [t, second ?? t];
  const takes = await Promise.all(
    Array.from({ length: 120 }, (_, i) => takeOne(handles[i % 2].db, { projectId: DEFAULT_PROJECT_ID, key: "global/test/user:x", max: 50, windowMs: 60_000 })),
  );
  expect(takes.filter((r) => r.allowed)).toHaveLength(50);
  // Each allowed take saw its own place in the window; every refusal saw it full.
  expect(new Set(takes.filter((r) => r.allowed).map((r) => r.count))).toEqual(new Set(Array.from({ length: 50 }, (_, i) => i + 1)));
  expect(takes.filter((r) => !r.allowed).every((r) => r.count === 50)).toBe(true);
  const [{ n }] = (await t.execute("select coalesce(sum(hits), 0)::integer as n from rate_limit_buckets where key = 'global/test/user:x'")).rows as { n: number }[];
  expect(n).toBe(50);
});

test("the window slides: no window of its length ever holds more than max, and a full one opens again once its oldest bucket has passed", async () => {
  const key = "global/slide/user:y";
  const take = () => takeOne(t.db, { projectId: DEFAULT_PROJECT_ID, key, max: 3, windowMs: 1000 });
  const allowedAt: number[] = [];
  const started = Date.now();
  while (Date.now() - started < 3_500) {
    const at = Date.now();
    if ((await take()).allowed) allowedAt.push(at);
    await new Promise((r) => setTimeout(r, 25));
  }
  // Some got through in each second (it reopens), never more than 3 within any 1 s.
  expect(allowedAt.length).toBeGreaterThanOrEqual(4);
  for (const at of allowedAt) expect(allowedAt.filter((other) => other >= at && other < at + 1000).length).toBeLessThanOrEqual(3);
  // Full now (the refusal that ends the loop saw all 3 in the window; a second take could already
  // fall past the oldest bucket, a 60th of the window, on a loaded machine); after the window and
  // one bucket have passed, open again.
  let refused = await take();
  while (refused.allowed) refused = await take();
  expect(refused).toEqual({ allowed: false, count: 3 });
  await new Promise((r) => setTimeout(r, 2_100));
  expect(await take()).toEqual({ allowed: true, count: 1 });
});

test("a person's 5 subagents × 20 calls at once under 60 a minute: 60 through, 40 refused with the count and recorded; another person unaffected", async () => {
  const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "fanout" }) }))!;
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "bash-60", scope: `agent:${agent.id}`, event: "tool.pre", matcher: "Bash", action: { type: "limit", max: 60, windowMs: 60_000, per: "actor" } }),
    actor: "test",
  });
  const dev = await addPerson(t.db, { email: "dev@example.com", role: "operator" });
  const other = await addPerson(t.db, { email: "other@example.com", role: "operator" });
  const devBridge = (await addToken(t.db, { role: "viewer", kind: "bridge", userId: dev.id, name: "dev-laptop" })).token;
  const otherBridge = (await addToken(t.db, { role: "viewer", kind: "bridge", userId: other.id, name: "other-laptop" })).token;
  const call = (token: string, session: string, subagent: number, i: number) =>
    callRoute(INGEST_ROUTES["claude-code"], {
      method: "POST",
      token,
      headers: { "x-hookplane-agent": "fanout" },
      body: { session_id: session, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: `echo ${subagent}-${i}` }, tool_use_id: `t-${subagent}-${i}`, agent_id: `sub-${subagent}`, agent_type: "worker" },
    });
  // Two sessions of the same person: the subagents of both count together.
  const answers = await Promise.all(Array.from({ length: 100 }, (_, k) => call(devBridge, k % 2 ? "dev-a" : "dev-b", k % 5, k)));
  expect(answers.map((a) => a.status)).toEqual(Array(100).fill(200));
  const denied = answers.filter((a) => a.body.hookSpecificOutput?.permissionDecision === "deny");
  expect(denied).toHaveLength(40);
  for (const answer of denied) expect(answer.body.hookSpecificOutput.permissionDecisionReason).toBe("Rate limit: 60 calls per 1 min for dev@example.com (60 already in the last 1 min)");
  // Every refusal is on the record: its ledger row and its denial event.
  const [{ blocks, allows }] = (
    await t.execute(
      "select count(*) filter (where verdict = 'block')::integer as blocks, count(*) filter (where verdict = 'allow')::integer as allows from hook_invocations h join runs r on r.id = h.run_id where r.external_session_id in ('dev-a', 'dev-b') and h.hook_key = 'bash-60'",
    )
  ).rows as { blocks: number; allows: number }[];
  expect([blocks, allows]).toEqual([40, 60]);
  const [{ denials }] = (
    await t.execute("select count(*)::integer as denials from run_events e join runs r on r.id = e.run_id where r.external_session_id in ('dev-a', 'dev-b') and e.type = 'loop.tool_denied'")
  ).rows as { denials: number }[];
  expect(denials).toBe(40);
  // Another person's calls have their own window.
  expect((await call(otherBridge, "other-a", 0, 0)).body.hookSpecificOutput?.permissionDecision).not.toBe("deny");
});

test("a limit counts only the calls that went through: a call a later guard blocks gives its token back, on two web processes at once", async () => {
  const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "limited-then-guarded" }) }))!;
  for (const spec of [
    { id: "bash-60-first", event: "tool.pre", matcher: "Bash", action: { type: "limit", max: 60, windowMs: 60_000, per: "actor" } },
    { id: "no-prod-after", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "prod is off-limits", denyIf: "/srv/prod" } },
  ]) {
    await createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ ...spec, scope: `agent:${agent.id}` }), actor: "test" });
  }
  const dev = await addPerson(t.db, { email: "guarded@example.com", role: "operator" });
  const principal: Principal = { kind: "user", id: dev.id, userId: dev.id, email: "guarded@example.com", label: "guarded@example.com", role: "operator", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: false };
  const handles = [t, second ?? t];
  const call = (i: number, command: string) =>
    ingestSessionEvent(handles[i % 2], principal, { agent: "limited-then-guarded", sessionId: `guarded-${i % 4}`, source: "claude-code", title: "t", type: "tool.pre", data: { toolName: "Bash", toolInput: { command }, toolCallId: `g-${i}` } });
  const settled = async () => {
    await settleRateLimitLeases(t.db);
    if (second) await settleRateLimitLeases(second.db);
    const [{ hits }] = (await t.execute("select coalesce(sum(hits), 0)::integer as hits from rate_limit_buckets where key like $1", [`%/bash-60-first/user:${dev.id}`])).rows as { hits: number }[];
    return hits;
  };
  // 40 calls at prod at once, each let through by the limit and then blocked by the guard: refused, and none of them counts.
  const prod = await Promise.all(Array.from({ length: 40 }, (_, i) => call(i, `cat /srv/prod/${i}`)));
  expect(prod.map((r) => [r.result?.verdict, r.result?.reason])).toEqual(Array(40).fill(["block", "prod is off-limits"]));
  expect(await settled()).toBe(0);
  // So the person's next 70 calls at once: 60 go through, 10 are refused by the limit naming the 60.
  const others = await Promise.all(Array.from({ length: 70 }, (_, i) => call(40 + i, `echo ${i}`)));
  const refused = others.filter((r) => r.result?.verdict === "block");
  expect(refused).toHaveLength(10);
  for (const r of refused) expect(r.result?.reason).toBe("Rate limit: 60 calls per 1 min for guarded@example.com (60 already in the last 1 min)");
  // Once every lease is returned, the window holds exactly the 60 calls that went through.
  expect(await settled()).toBe(60);
  // The record: every refusal is a denial; the limit's rows say it let 100 through, 40 of them given
  // back (the guard blocked those calls), and refused 10.
  const [{ blocks, allows, givenBack }] = (
    await t.execute(
      `select count(*) filter (where verdict = 'block')::integer as blocks, count(*) filter (where verdict = 'allow')::integer as allows,
              count(*) filter (where verdict = 'allow' and reason like '%(given back: the call did not go through)')::integer as "givenBack"
         from hook_invocations where hook_key = 'bash-60-first' and actor_key = $1`,
      [`user:${dev.id}`],
    )
  ).rows as { blocks: number; allows: number; givenBack: number }[];
  expect([blocks, allows, givenBack]).toEqual([10, 100, 40]);
  const [{ denials }] = (
    await t.execute("select count(*)::integer as denials from run_events e join runs r on r.id = e.run_id where r.external_session_id like 'guarded-%' and e.type = 'loop.tool_denied'")
  ).rows as { denials: number }[];
  expect(denials).toBe(50);
});

test("a call the agent refuses because it cannot apply a hook's change does not use the limit", async () => {
  const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "limited-then-rewritten" }) }))!;
  for (const spec of [
    { id: "two-a-minute", event: "tool.pre", matcher: "Bash", action: { type: "limit", max: 2, windowMs: 60_000, per: "actor" } },
    { id: "rewrite-touch", event: "tool.pre", matcher: "Bash", when: "toolInput.command: /^touch /", action: { type: "modify", input: { command: "touch rewritten" } } },
  ]) {
    await createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ ...spec, scope: `agent:${agent.id}` }), actor: "test" });
  }
  const dev = await addPerson(t.db, { email: "rewritten@example.com", role: "operator" });
  const principal: Principal = { kind: "user", id: dev.id, userId: dev.id, email: "rewritten@example.com", label: "rewritten@example.com", role: "operator", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: false };
  // A runtime that applies no change to a call's input (the generic endpoint's default).
  const call = (command: string, i: number) =>
    ingestSessionEvent(t, principal, {
      agent: "limited-then-rewritten",
      sessionId: "rewritten-1",
      source: "my-runtime",
      title: "t",
      type: "tool.pre",
      data: { toolName: "Bash", toolInput: { command }, toolCallId: `rw-${i}` },
      applies: { agent: "my-runtime", input: false, output: false, ask: false },
    });
  for (let i = 0; i < 3; i++) {
    const refused = await call(`touch f${i}`, i);
    expect(refused.result).toMatchObject({ verdict: "block", reason: expect.stringContaining("cannot apply") });
  }
  expect((await call("ls", 3)).result?.verdict).toBe("allow");
  expect((await call("ls", 4)).result?.verdict).toBe("allow");
  expect((await call("ls", 5)).result).toMatchObject({ verdict: "block", reason: expect.stringMatching(/^Rate limit: 2 calls per 1 min/) });
});
