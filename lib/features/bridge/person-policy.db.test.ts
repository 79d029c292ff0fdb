/**
 * Policy per person through the bridged hook path (issue 27, item 3): rules bound to a single
 * sign-on group and to one person, the precedence (deny wins) and an admin's exception for one
 * person, each taking effect on the next call; from the wrong side: an operator cannot mark,
 * change or remove an exception, another person's calls keep the deny, a person who left the group
 * loses its rules on their next call. The replay preview says whose calls a draft would change.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { setUserSsoGroups } from "@/db/queries/users";
import { announceAccessChange } from "@/db/queries/access-changes";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPerson, addToken } from "@/test/people";
import * as hooksRoute from "@/app/api/v1/hooks/route";
import * as hookRoute from "@/app/api/v1/hooks/[id]/route";
import * as replayRoute from "@/app/api/v1/hooks/replay/route";
import * as agentRoute from "@/app/api/v1/agents/[id]/route";
import * as costsRoute from "@/app/api/v1/costs/route";
import { INGEST_ROUTES } from "./ingest-routes";

let t: TestDatabase;
let admin: string;
let operatorApi: string;
const bridge: Record<"alice" | "bob" | "carol", string> = {} as never;
const ids: Record<"alice" | "bob" | "carol", string> = {} as never;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  const lead = await addPerson(t.db, { email: "lead@example.com", role: "admin" });
  admin = (await addToken(t.db, { role: "admin", userId: lead.id, name: "lead" })).token;
  for (const [name, role, groups] of [
    ["alice", "operator", ["oncall", "eng"]],
    ["bob", "operator", ["eng"]],
    ["carol", "viewer", []],
  ] as const) {
    const person = await addPerson(t.db, { email: `${name}@example.com`, role });
    ids[name] = person.id;
    await setUserSsoGroups(t.db, { id: person.id, groups: [...groups] });
    bridge[name] = (await addToken(t.db, { role: "viewer", kind: "bridge", userId: person.id, name: `${name}-laptop` })).token;
  }
  operatorApi = (await addToken(t.db, { role: "operator", userId: ids.bob, name: "bob-api" })).token;
  await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "dev" }) });
});
afterAll(async () => {
  await t?.drop();
});

let call = 0;
async function bash(who: "alice" | "bob" | "carol", command: string) {
  const res = await callRoute(INGEST_ROUTES["claude-code"], {
    method: "POST",
    token: bridge[who],
    headers: { "x-hookplane-agent": "dev" },
    body: { session_id: `${who}-session`, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: `t${++call}` },
  });
  expect(res.status).toBe(200);
  return { decision: (res.body.hookSpecificOutput?.permissionDecision as string | undefined) ?? "allow", text: JSON.stringify(res.body), toolUseId: `t${call}` };
}
const decisions = async (command: string) => ({ alice: (await bash("alice", command)).decision, bob: (await bash("bob", command)).decision, carol: (await bash("carol", command)).decision });

async function createHook(token: string, spec: Record<string, unknown>) {
  return callRoute(hooksRoute.POST, { method: "POST", token, body: { event: "tool.pre", ...spec } });
}

test("a group's rule holds for its members; leaving the group lifts it on the next call", async () => {
  const made = await createHook(admin, { id: "eng-no-delete", scope: "group:eng", matcher: "Bash", action: { type: "block", reason: "eng does not delete clusters", denyIf: "kubectl delete" } });
  expect(made.status).toBe(201);
  expect(made.body.scope).toBe("group:eng");
  expect(await decisions("kubectl delete ns prod")).toEqual({ alice: "deny", bob: "deny", carol: "allow" });
  // Single sign-on says Bob left eng (his next sign-in): his next call is his own again.
  await setUserSsoGroups(t.db, { id: ids.bob, groups: [] });
  await announceAccessChange(t.db, { userId: ids.bob });
  expect((await bash("bob", "kubectl delete ns prod")).decision).toBe("allow");
  await setUserSsoGroups(t.db, { id: ids.bob, groups: ["eng"] });
  await announceAccessChange(t.db, { userId: ids.bob });
});

test("a person's rule, by email, is stored by user id and holds for them alone", async () => {
  const made = await createHook(admin, { id: "carol-no-curl", scope: "person:carol@example.com", matcher: "Bash", action: { type: "block", reason: "Carol's network access is revoked", denyIf: "curl" } });
  expect(made.status).toBe(201);
  expect(made.body.scope).toBe(`person:${ids.carol}`);
  expect(await decisions("curl https://example.com")).toEqual({ alice: "allow", bob: "allow", carol: "deny" });
  const unknown = await createHook(admin, { id: "x", scope: "person:nobody@example.com", action: { type: "block" } });
  expect(unknown.status).toBe(422);
  expect(JSON.stringify(unknown.body)).toContain("scope");
});

test("deny wins, unless an admin marks a person's allow rule as an exception: it applies on the next call, only to that person, and is recorded beside the deny it waived", async () => {
  expect((await createHook(admin, { id: "no-terraform", matcher: "Bash", action: { type: "block", reason: "terraform runs from the pipeline", denyIf: "terraform" } })).status).toBe(201);
  expect(await decisions("terraform apply")).toEqual({ alice: "deny", bob: "deny", carol: "deny" });
  // A person's allow rule that is not an exception does not beat the deny.
  const plain = await createHook(admin, { id: "alice-terraform", scope: `person:${ids.alice}`, matcher: "Bash", action: { type: "allow", reason: "Alice is on call" } });
  expect(plain.status).toBe(201);
  expect((await bash("alice", "terraform apply")).decision).toBe("deny");

  // An operator (Bob) may not mark it an exception, nor make one of his own.
  const byOperator = await callRoute(hookRoute.PATCH, { method: "PATCH", token: operatorApi, params: { id: plain.body.id }, body: { exception: true } });
  expect(byOperator.status).toBe(403);
  expect(byOperator.body.error.message).toContain("Only admins may create, change or delete an exception");
  const own = await createHook(operatorApi, { id: "bob-terraform", scope: `person:${ids.bob}`, matcher: "Bash", exception: true, action: { type: "allow" } });
  expect(own.status).toBe(403);
  expect((await bash("bob", "terraform apply")).decision).toBe("deny");

  // The admin marks it: Alice's next call goes through; Bob and Carol are still denied.
  const marked = await callRoute(hookRoute.PATCH, { method: "PATCH", token: admin, params: { id: plain.body.id }, body: { exception: true } });
  expect(marked.status).toBe(200);
  expect(marked.body.spec.exception).toBe(true);
  const alice = await bash("alice", "terraform apply");
  expect(alice.decision).toBe("allow");
  expect(await decisions("terraform plan")).toEqual({ alice: "allow", bob: "deny", carol: "deny" });
  // The ledger keeps both rules: the deny, decided and waived, and the exception that waived it, both Alice's.
  const rows = (
    await t.execute(
      `select l.hook_key, l.verdict, l.ignored, l.reason, l.actor_key from hook_invocations l join run_events e on e.run_id = l.run_id and e.seq = l.event_seq
        where e.data->>'toolCallId' = $1 and l.matched order by l.id`,
      [alice.toolUseId],
    )
  ).rows;
  expect(rows).toEqual([
    { hook_key: "no-terraform", verdict: "block", ignored: true, reason: "terraform runs from the pipeline (waived: exception alice-terraform allows this call for this person)", actor_key: `user:${ids.alice}` },
    { hook_key: "eng-no-delete", verdict: "allow", ignored: false, reason: "denyIf /kubectl delete/ did not match", actor_key: `user:${ids.alice}` },
    { hook_key: "alice-terraform", verdict: "allow", ignored: false, reason: "Alice is on call", actor_key: `user:${ids.alice}` },
  ]);
  // The exception never beats a group's rule of the same person? It does (group is broader); her own deny it does not.
  expect((await bash("alice", "kubectl delete ns prod")).decision).toBe("allow");
  const ownDeny = await createHook(admin, { id: "alice-no-destroy", scope: `person:${ids.alice}`, matcher: "Bash", action: { type: "block", reason: "not even on call", denyIf: "destroy" } });
  expect(ownDeny.status).toBe(201);
  expect((await bash("alice", "terraform destroy")).decision).toBe("deny");

  // An operator cannot switch the exception off or delete it either; the admin can, and the deny is back on the next call.
  expect((await callRoute(hookRoute.PATCH, { method: "PATCH", token: operatorApi, params: { id: plain.body.id }, body: { enabled: false } })).status).toBe(403);
  expect((await callRoute(hookRoute.DELETE, { method: "DELETE", token: operatorApi, params: { id: plain.body.id } })).status).toBe(403);
  expect((await callRoute(hookRoute.PATCH, { method: "PATCH", token: admin, params: { id: plain.body.id }, body: { enabled: false } })).status).toBe(200);
  expect((await bash("alice", "terraform apply")).decision).toBe("deny");
  const audit = (await t.execute("select actor, action from audit_log where entity_type = 'hook' and entity_id = $1 order by id", [plain.body.id])).rows;
  expect(audit.map((r) => `${r.actor} ${r.action}`)).toEqual(["token:lead hook.create", "token:lead hook.update", "token:lead hook.update"]);
});

test("the replay preview says whose calls a draft would change", async () => {
  const [agent] = (await t.execute("select id from agents where name = 'dev'")).rows as { id: string }[];
  // An exception for Bob: exactly his denied calls would change (the broader denies), nobody else's.
  const bobs = await callRoute(replayRoute.POST, {
    method: "POST",
    token: admin,
    body: { hook: { id: "bob-terraform", event: "tool.pre", scope: "person:bob@example.com", matcher: "Bash", exception: true, action: { type: "allow" } }, agent: agent.id, runs: 50 },
  });
  expect(bobs.status).toBe(200);
  const bobDenied = (
    await t.execute(
      // Every deny of his an exception can waive: the project's terraform rule and the eng group's.
      `select count(*)::int as n from hook_invocations where actor_key = $1 and verdict = 'block' and not ignored and hook_key in ('no-terraform', 'eng-no-delete')`,
      [`user:${ids.bob}`],
    )
  ).rows[0] as { n: number };
  expect(bobDenied.n).toBeGreaterThan(0);
  expect(bobs.body.byPerson).toEqual([{ actor: "bob@example.com", calls: bobDenied.n }]);
  expect(new Set(bobs.body.differences.map((d: { actor: string }) => d.actor))).toEqual(new Set(["bob@example.com"]));
  // A guard for the eng group: the past calls of its members it would block, named.
  const guard = await callRoute(replayRoute.POST, {
    method: "POST",
    token: admin,
    body: { hook: { id: "eng-no-curl", event: "tool.pre", scope: "group:eng", matcher: "Bash", action: { type: "block", denyIf: "curl" } }, agent: agent.id, runs: 50 },
  });
  expect(guard.body.byPerson.map((p: { actor: string }) => p.actor).sort()).toEqual(["alice@example.com", "bob@example.com"]);
  // Without an agent: the project's bridged sessions of every agent, the group rule still only its members'.
  const everywhere = await callRoute(replayRoute.POST, {
    method: "POST",
    token: admin,
    body: { hook: { id: "eng-no-curl", event: "tool.pre", scope: "group:eng", matcher: "Bash", action: { type: "block", denyIf: "curl" } }, runs: 50 },
  });
  expect(everywhere.status).toBe(200);
  expect(everywhere.body.differences).toHaveLength(guard.body.differences.length);
  expect(everywhere.body.byPerson).toEqual(guard.body.byPerson);
  for (const d of everywhere.body.differences) expect(d).toMatchObject({ agent: { name: "dev" }, runPath: `/runs/${d.runId}#event-${d.seq}` });
});

test("a daily budget per person: past it, that person's next tool call is refused and recorded, until 00:00 UTC; the others go on", async () => {
  const bad = await callRoute(agentRoute.PATCH, { method: "PATCH", token: admin, params: { id: "dev" }, body: { dailyBudgetPerPersonUsd: -1 } });
  expect(bad.status).toBe(422);
  expect(JSON.stringify(bad.body)).toContain("dailyBudgetPerPersonUsd");
  const set = await callRoute(agentRoute.PATCH, { method: "PATCH", token: admin, params: { id: "dev" }, body: { dailyBudgetPerPersonUsd: 1 } });
  expect(set.status).toBe(200);
  expect((await bash("alice", "ls")).decision).toBe("allow");
  // What Alice's sessions of dev reported today (their transcripts' usage, priced) passes the budget.
  await t.execute("update runs set cost_usd = 1.2 where actor_key = $1", [`user:${ids.alice}`]);
  await t.execute("update runs set cost_usd = 0.4 where actor_key = $1", [`user:${ids.bob}`]);
  const refused = await bash("alice", "ls");
  expect(refused.decision).toBe("deny");
  expect(refused.text).toContain("alice@example.com has spent $1.2000 today in dev's sessions, reaching the daily budget per person of $1");
  expect((await bash("bob", "ls")).decision).toBe("allow");
  // Recorded: the call and its refusal, in her session.
  const [denial] = (await t.execute("select e.data from run_events e join runs r on r.id = e.run_id where r.actor_key = $1 and e.type = 'loop.tool_denied' and e.data->>'toolCallId' = $2", [`user:${ids.alice}`, refused.toolUseId])).rows as { data: Record<string, unknown> }[];
  expect(denial.data).toMatchObject({ by: "budget", toolName: "Bash" });
  // The costs page's budgets say it, with who spent most today.
  const costs = await callRoute(costsRoute.GET, { token: admin });
  expect(costs.body.budgets.find((b: { agentName: string }) => b.agentName === "dev")).toMatchObject({ dailyBudgetPerPersonUsd: 1, topPerson: { label: "alice@example.com", spentTodayUsd: 1.2 } });
  // Raised: her next call goes through.
  await callRoute(agentRoute.PATCH, { method: "PATCH", token: admin, params: { id: "dev" }, body: { dailyBudgetPerPersonUsd: 5 } });
  expect((await bash("alice", "ls")).decision).toBe("allow");
});

test("an allow-list: only the on-call group may touch prod (a block for everyone the negated condition holds for), changed on the next call", async () => {
  const made = await createHook(admin, {
    id: "prod-on-call-only",
    scope: "global",
    matcher: "Bash",
    when: '!actor.groups: /"oncall"/',
    action: { type: "block", reason: "only the on-call touch prod", denyIf: "--context prod" },
  });
  expect(made.status).toBe(201);
  expect(await decisions("kubectl get pods --context prod")).toEqual({ alice: "allow", bob: "deny", carol: "deny" });
  // The condition's "why not" is kept for the member it skipped.
  const { rows } = await t.execute(
    "select actor_key, matched, skip_reason, verdict from hook_invocations where hook_key = 'prod-on-call-only' order by id desc limit 3",
  );
  expect(rows).toEqual([
    { actor_key: `user:${ids.carol}`, matched: true, skip_reason: null, verdict: "block" },
    { actor_key: `user:${ids.bob}`, matched: true, skip_reason: null, verdict: "block" },
    { actor_key: `user:${ids.alice}`, matched: false, skip_reason: 'when !actor.groups: /"oncall"/: actor.groups: /"oncall"/ holds', verdict: null },
  ]);
  // Bob joins the rotation: his next call is let through.
  await setUserSsoGroups(t.db, { id: ids.bob, groups: ["eng", "oncall"] });
  await announceAccessChange(t.db, { userId: ids.bob });
  expect((await bash("bob", "kubectl get pods --context prod")).decision).toBe("allow");
  await setUserSsoGroups(t.db, { id: ids.bob, groups: ["eng"] });
  await announceAccessChange(t.db, { userId: ids.bob });
  expect((await callRoute(hookRoute.DELETE, { method: "DELETE", token: admin, params: { id: made.body.id } })).status).toBe(204);
});
