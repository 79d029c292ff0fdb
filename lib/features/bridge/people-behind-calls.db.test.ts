/**
 * The person behind every bridged call (issue 27, first slice): three people of one project and one
 * of another, each with their own bridge credential, through the ingest endpoint:
 * - a bridge credential reaches the ingest endpoints and nothing else (every route under
 *   app/api/v1, found from the file tree: 403; the ingest role also reads an agent's settings and
 *   records an install, for hookplane install and doctor), so a developer's agent cannot switch
 *   off its guard;
 * - each call is recorded as its person's: the run's actor (API, list filter, export), and a
 *   shared session id stays one run per person;
 * - a hook can tell people apart (`when: "actor.email: ..."`, `actor.role`), applied on the next call;
 * - a person removed from the project is refused on their very next call.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { createHook } from "@/db/queries/hooks";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { removeMemberAudited } from "@/lib/platform/auth/user-service";
import type { Principal } from "@/lib/platform/auth/roles";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { loadRouteCatalog } from "@/test/hostile/route-catalog";
import { addPerson, addProject, addToken } from "@/test/people";
import * as bridgeCredentialsRoute from "@/app/api/v1/bridge-credentials/route";
import * as bridgeCredentialRevokeRoute from "@/app/api/v1/bridge-credentials/[id]/route";
import * as runRoute from "@/app/api/v1/runs/[id]/route";
import * as runsRoute from "@/app/api/v1/runs/route";
import * as runsExportRoute from "@/app/api/v1/runs/export/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import * as approvalsRoute from "@/app/api/v1/approvals/route";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";
import * as ledgerRoute from "@/app/api/v1/ledger/route";
import * as ledgerExportRoute from "@/app/api/v1/ledger/export/route";
import * as costsRoute from "@/app/api/v1/costs/route";
import { verifyChain } from "@/db/queries/chain-verification";
import { sealChain } from "@/db/queries/hash-chain";
import { sql } from "drizzle-orm";
import { INGEST_ROUTES } from "./ingest-routes";

let t: TestDatabase;
let agentId: string;
const people: Record<"alice" | "bob" | "carol", { id: string; email: string; bridge: string; api: string }> = {} as never;
let admin: string;
let otherProjectBridge: string;

/** A person's bridge credential, made as docs/coding-agents.md says: by them, through the API. */
async function bridgeCredentialOf(apiToken: string, name: string): Promise<string> {
  const res = await callRoute(bridgeCredentialsRoute.POST, { method: "POST", token: apiToken, body: { name } });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ kind: "bridge", name });
  return res.body.token;
}

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  const lead = await addPerson(t.db, { email: "lead@example.com", role: "admin" });
  admin = (await addToken(t.db, { role: "admin", userId: lead.id, name: "lead" })).token;
  for (const [name, role] of [["alice", "operator"], ["bob", "viewer"], ["carol", "operator"]] as const) {
    const person = await addPerson(t.db, { email: `${name}@example.com`, role });
    const api = (await addToken(t.db, { role: "viewer", userId: person.id, name: `${name}-api` })).token;
    people[name] = { id: person.id, email: person.email, api, bridge: await bridgeCredentialOf(api, `${name}-laptop`) };
  }
  const other = await addProject(t.db, { slug: "other" });
  const dave = await addPerson(t.db, { email: "dave@example.com", role: "operator", projectId: other.id });
  otherProjectBridge = (await addToken(t.db, { role: "viewer", kind: "bridge", userId: dave.id, projectId: other.id, name: "dave-laptop" })).token;
  agentId = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "dev" }) }))!.id;
});
afterAll(async () => {
  await t?.drop();
});

function hookCall(token: string, body: Record<string, unknown>, machine: Record<string, string> = {}) {
  return callRoute(INGEST_ROUTES["claude-code"], { method: "POST", token, headers: { "x-hookplane-agent": "dev", ...machine }, body });
}
const bash = (session: string, command: string, id: string) => ({ session_id: session, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: id });
const decision = (res: { body: { hookSpecificOutput?: { permissionDecision?: string } } }) => res.body.hookSpecificOutput?.permissionDecision ?? "allow";

test("a bridge credential is refused (403) on every route but the ingest endpoints, whatever its person's role", async () => {
  const routes = await loadRouteCatalog();
  const refusedOrNot: string[] = [];
  for (const route of routes) {
    if (route.schemas.role === null) continue;
    const path = route.template.replace(/\[(\w+)\]/g, "00000000-0000-4000-8000-000000000000");
    const params = Object.fromEntries(route.params.map((p) => [p, "00000000-0000-4000-8000-000000000000"]));
    const res = await callRoute(route.handler, { method: route.method, path, token: people.alice.bridge, params, body: route.method === "GET" ? undefined : {} });
    const ingest = route.schemas.role === "ingest";
    if (ingest ? res.status === 403 || res.status === 401 : res.status !== 403) refusedOrNot.push(`${route.method} ${route.template} → ${res.status}`);
    if (!ingest) expect(res.body?.error?.message ?? "").toContain("bridge credential");
  }
  expect(refusedOrNot).toEqual([]);
  // Besides the hook calls: hookplane install and doctor read the credential's project's agent's
  // settings for one coding agent, and record an install (lib/features/config-io/agent-installs.ts).
  // And the coding agents' own telemetry, for the sessions that ran without hooks (session-sightings.ts).
  const installRoutes = ["/api/v1/ingest/installs", "/api/v1/ingest/otel/v1/logs", ...["claude-code", "codex", "copilot", "cursor", "gemini-cli"].map((agent) => `/api/v1/ingest/${agent}/settings`)];
  expect(routes.filter((r) => r.schemas.role === "ingest").map((r) => r.template).sort()).toEqual([...Object.keys(INGEST_ROUTES).map((name) => `/api/v1/ingest/${name}`), ...installRoutes].sort());
});

test("each call is its person's: one run per person for a shared session id, the actor in the API, its filter and the export", async () => {
  const machine = { "x-hookplane-host": "alice-mbp", "x-hookplane-os-user": "alice" };
  expect(decision(await hookCall(people.alice.bridge, bash("shared-session", "ls", "a1"), machine))).toBe("allow");
  expect(decision(await hookCall(people.bob.bridge, bash("shared-session", "ls", "b1")))).toBe("allow");
  expect(decision(await hookCall(people.alice.bridge, bash("shared-session", "pwd", "a2"), machine))).toBe("allow");
  // The same session id from another project's person names nothing here: their project has no agent "dev".
  expect((await hookCall(otherProjectBridge, bash("shared-session", "ls", "d1"))).status).toBe(404);

  const runs = (await t.execute("select id, actor_user_id, actor_label, actor_host, actor_os_user, last_seq from runs where external_session_id = 'shared-session' order by actor_label")).rows as {
    id: string;
    actor_user_id: string;
    actor_label: string;
    actor_host: string | null;
    actor_os_user: string | null;
    last_seq: number;
  }[];
  expect(runs.map((r) => [r.actor_user_id, r.actor_label, r.actor_host, r.actor_os_user, r.last_seq])).toEqual([
    [people.alice.id, "alice@example.com", "alice-mbp", "alice", 2],
    [people.bob.id, "bob@example.com", null, null, 1],
  ]);
  const alicesRun = await callRoute(runRoute.GET, { path: `/api/v1/runs/${runs[0].id}`, token: admin, params: { id: runs[0].id } });
  expect(alicesRun.body.actor).toEqual({ userId: people.alice.id, label: "alice@example.com", machine: { host: "alice-mbp", osUser: "alice", reported: true } });
  const bobs = await callRoute(runsRoute.GET, { path: "/api/v1/runs?actor=bob@example.com", token: admin });
  expect(bobs.body.items.map((r: { id: string }) => r.id)).toEqual([runs[1].id]);
  const byId = await callRoute(runsRoute.GET, { path: `/api/v1/runs?actor=${people.alice.id}`, token: admin });
  expect(byId.body.items.map((r: { id: string }) => r.id)).toEqual([runs[0].id]);
  const nobody = await callRoute(runsRoute.GET, { path: "/api/v1/runs?actor=nobody@example.com", token: admin });
  expect(nobody.body.items).toEqual([]);
  // The export names the person and the machine as reported, filtered the same way.
  const exported = (format: string) =>
    runsExportRoute.GET(new Request(`http://localhost/api/v1/runs/export?format=${format}&actor=alice@example.com`, { headers: { authorization: `Bearer ${admin}` } })).then((r) => r.text());
  const lines = (await exported("ndjson")).trim().split("\n").map((line) => JSON.parse(line));
  expect(lines.map((l) => [l.id, l.actor])).toEqual([[runs[0].id, alicesRun.body.actor]]);
  const [header, row, ...more] = (await exported("csv")).trim().split(/\r?\n/);
  expect(more).toEqual([]);
  const csv = Object.fromEntries(header.split(",").map((name, i) => [name, row.split(",")[i]]));
  expect([csv.actor, csv.actorUserId, csv.actorHostReported, csv.actorOsUserReported]).toEqual(["alice@example.com", people.alice.id, "alice-mbp", "alice"]);

  // Admins see every person's bridge credentials, with owner and kind; a person lists their own.
  const tokens = await callRoute(tokensRoute.GET, { token: admin });
  const bridges = tokens.body.items.filter((i: { kind: string }) => i.kind === "bridge").map((i: { ownerEmail: string; name: string }) => `${i.ownerEmail} ${i.name}`);
  expect(bridges.sort()).toEqual(["alice@example.com alice-laptop", "bob@example.com bob-laptop", "carol@example.com carol-laptop"]);
  const own = await callRoute(bridgeCredentialsRoute.GET, { token: people.bob.api });
  expect(own.body.items.map((i: { name: string }) => i.name)).toEqual(["bob-laptop"]);
  // Another member cannot revoke someone else's credential: 404, and it still works.
  const alicesId = tokens.body.items.find((i: { kind: string; ownerEmail: string }) => i.kind === "bridge" && i.ownerEmail === "alice@example.com").id;
  const notTheirs = await callRoute(bridgeCredentialRevokeRoute.DELETE, { method: "DELETE", token: people.bob.api, params: { id: alicesId } });
  expect(notTheirs.status).toBe(404);
  expect((await hookCall(people.alice.bridge, bash("shared-session", "whoami", "a9"))).status).toBe(200);
});

test("a hook tells people apart: a rule for one person, a rule by role, each applied on the next call", async () => {
  const session = (who: string) => `policy-${who}`;
  expect(decision(await hookCall(people.bob.bridge, bash(session("bob"), "terraform apply", "p0")))).toBe("allow");
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({
      id: "bob-no-terraform",
      scope: `agent:${agentId}`,
      event: "tool.pre",
      matcher: "Bash",
      when: "actor.email: bob@example.com",
      action: { type: "block", reason: "Bob's access to terraform is revoked", denyIf: "terraform" },
    }),
    actor: "test",
  });
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "viewers-read-only", scope: `agent:${agentId}`, event: "tool.pre", matcher: "Write", when: "actor.role: viewer", action: { type: "block", reason: "Viewers' agents do not write" } }),
    actor: "test",
  });
  const bobTerraform = await hookCall(people.bob.bridge, bash(session("bob"), "terraform apply", "p1"));
  expect(decision(bobTerraform)).toBe("deny");
  expect(JSON.stringify(bobTerraform.body)).toContain("Bob's access to terraform is revoked");
  expect(decision(await hookCall(people.alice.bridge, bash(session("alice"), "terraform apply", "p2")))).toBe("allow");
  const write = (who: "alice" | "bob", id: string) =>
    hookCall(people[who].bridge, { session_id: session(who), hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: "/repo/x", content: "x" }, tool_use_id: id });
  expect(decision(await write("bob", "w1"))).toBe("deny");
  expect(decision(await write("alice", "w2"))).toBe("allow");

  // The ledger says whose call each rule decided, through the run it belongs to.
  const [bobRun] = (await t.execute("select id from runs where external_session_id = $1", [session("bob")])).rows as { id: string }[];
  const ledger = await listRunHookInvocations(t.db, { runId: bobRun.id });
  expect(ledger.filter((r) => r.verdict === "block").map((r) => r.hookKey).sort()).toEqual(["bob-no-terraform", "viewers-read-only"]);
  const [aliceRun] = (await t.execute("select id from runs where external_session_id = $1", [session("alice")])).rows as { id: string }[];
  const aliceLedger = await listRunHookInvocations(t.db, { runId: aliceRun.id });
  // Alice's two calls: her terraform passed over by the person's rule (its `when` did not hold), her Write by its matcher.
  expect(aliceLedger.filter((r) => r.hookKey === "bob-no-terraform").map((r) => [r.matched, r.verdict])).toEqual([
    [false, null],
    [false, null],
  ]);
  expect(aliceLedger.find((r) => r.hookKey === "bob-no-terraform")?.skipReason).toContain("actor.email");
});

test("an approval names whose agent asked; the approvals list filters by person; the bridge credential cannot decide it", async () => {
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "ask-deploys", scope: `agent:${agentId}`, event: "tool.pre", matcher: "Bash", when: "tool_input.command: /deploy/", action: { type: "approve", timeoutMs: 60_000, onTimeout: "deny" } }),
    actor: "test",
  });
  const waiting = hookCall(people.alice.bridge, bash("alice-deploy", "make deploy", "d1"));
  let pending: { id: string; actor?: unknown }[] = [];
  await expect
    .poll(async () => {
      pending = (await callRoute(approvalsRoute.GET, { path: "/api/v1/approvals?status=pending&actor=alice@example.com", token: admin })).body.items;
      return pending.length;
    })
    .toBe(1);
  expect(pending[0].actor).toEqual({ userId: people.alice.id, label: "alice@example.com" });
  expect((await callRoute(approvalsRoute.GET, { path: "/api/v1/approvals?status=pending&actor=bob@example.com", token: admin })).body.items).toEqual([]);
  // Her own agent's credential cannot approve what it waits on.
  const selfApproval = await callRoute(decisionRoute.POST, { method: "POST", token: people.alice.bridge, params: { id: pending[0].id }, body: { decision: "approve" } });
  expect(selfApproval.status).toBe(403);
  const decided = await callRoute(decisionRoute.POST, { method: "POST", token: admin, params: { id: pending[0].id }, body: { decision: "deny", reason: "not today" } });
  expect(decided.status).toBe(200);
  expect(decision(await waiting)).toBe("deny");
});

test("which of a person's agents acted: a subagent names itself and the session that delegated; CI runs are headless; a rule can tell them apart", async () => {
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "subagents-no-push", scope: `agent:${agentId}`, event: "tool.pre", matcher: "Bash", when: "actor.tier: subagent", action: { type: "block", reason: "Subagents do not push", denyIf: "git push" } }),
    actor: "test",
  });
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "ci-no-deploys", scope: `agent:${agentId}`, event: "tool.pre", matcher: "Bash", when: "actor.tier: headless", action: { type: "block", reason: "CI does not deploy", denyIf: "kubectl apply" } }),
    actor: "test",
  });
  const session = "tiers";
  const main = await hookCall(people.alice.bridge, bash(session, "git push origin main", "m1"));
  expect(decision(main)).toBe("allow");
  const sub = await hookCall(people.alice.bridge, { ...bash(session, "git push origin main", "s1"), agent_id: "agent-7f3", agent_type: "code-reviewer" });
  expect(decision(sub)).toBe("deny");
  expect(JSON.stringify(sub.body)).toContain("Subagents do not push");
  // The record keeps who delegated to whom: the subagent's call carries it, in the same person's session run.
  const [run] = (await t.execute("select id from runs where external_session_id = $1", [session])).rows as { id: string }[];
  const [pre] = (await t.execute("select data from run_events where run_id = $1 and type = 'tool.pre' and data->>'toolCallId' = 's1'", [run.id])).rows as { data: Record<string, unknown> }[];
  expect(pre.data).toMatchObject({ agentId: "agent-7f3", agentType: "code-reviewer" });
  const ciCall = await hookCall(people.alice.bridge, bash("ci-session", "kubectl apply -f prod.yml", "c1"), { "x-hookplane-ci": "1" });
  expect(decision(ciCall)).toBe("deny");
  expect(decision(await hookCall(people.alice.bridge, bash("laptop-session", "kubectl apply -f prod.yml", "l1")))).toBe("allow");
});

test("the ledger names who acted on every row, hashed with it; the ledger, its export and the costs filter by person", async () => {
  type Row = { id: number; hook_key: string; actor_key: string | null; actor: Record<string, unknown> | null };
  const ledgerOf = async (session: string) =>
    (await t.execute("select l.id::int as id, l.hook_key, l.actor_key, l.actor from hook_invocations l join runs r on r.id = l.run_id where r.external_session_id = $1 order by l.id", [session])).rows as Row[];
  // Bob's (a viewer's) calls: every row his, with his role at the time and his own agent's tier.
  const bobs = await ledgerOf("policy-bob");
  expect(bobs.length).toBeGreaterThan(0);
  for (const row of bobs) {
    expect(row.actor_key).toBe(`user:${people.bob.id}`);
    expect(row.actor).toEqual({ userId: people.bob.id, label: "bob@example.com", role: "viewer", tier: "interactive" });
  }
  // A subagent's row names the subagent and the session that delegated to it; the CI call is headless.
  const tiers = await ledgerOf("tiers");
  const subRows = tiers.filter((r) => (r.actor as { tier?: string }).tier === "subagent");
  expect(subRows.length).toBeGreaterThan(0);
  expect(subRows[0].actor).toMatchObject({ label: "alice@example.com", tier: "subagent", subagent: { id: "agent-7f3", type: "code-reviewer" }, parent: { sessionId: "tiers" } });
  expect((await ledgerOf("ci-session")).map((r) => (r.actor as { tier?: string }).tier)).toEqual(expect.arrayContaining(["headless"]));

  // The ledger API by person: only Bob's rows, each naming him; an unknown person gets none.
  const bobsLedger = await callRoute(ledgerRoute.GET, { path: "/api/v1/ledger?actor=bob@example.com&limit=200", token: admin });
  expect(bobsLedger.status).toBe(200);
  const bobsAll = (await t.execute("select count(*)::int as n from hook_invocations where actor_key = $1", [`user:${people.bob.id}`])).rows[0] as { n: number };
  expect(bobsLedger.body.items.length).toBe(bobsAll.n);
  expect(new Set(bobsLedger.body.items.map((r: { actorKey: string }) => r.actorKey))).toEqual(new Set([`user:${people.bob.id}`]));
  expect((await callRoute(ledgerRoute.GET, { path: "/api/v1/ledger?actor=nobody@example.com", token: admin })).body.items).toEqual([]);
  const csv = await ledgerExportRoute
    .GET(new Request(`http://localhost/api/v1/ledger/export?format=csv&actor=${people.bob.id}&verdict=block`, { headers: { authorization: `Bearer ${admin}` } }))
    .then((r) => r.text());
  const [header, ...lines] = csv.trim().split(/\r?\n/);
  const columns = header.split(",");
  expect(lines.length).toBe(2);
  for (const line of lines) {
    const cells = Object.fromEntries(columns.map((name, i) => [name, line.split(",")[i]]));
    expect([cells.actor, cells.actorKey, cells.actorRole, cells.actorTier]).toEqual(["bob@example.com", `user:${people.bob.id}`, "viewer", "interactive"]);
  }

  // Who acted is part of each row's hash: changed behind the triggers' back, the chain names that row.
  await sealChain(t.db, { table: "hook_invocations" });
  expect((await verifyChain(t.db, { table: "hook_invocations" })).firstBroken).toBeUndefined();
  await expect(t.execute("update hook_invocations set actor_key = 'user:someone-else' where id = $1", [bobs[0].id])).rejects.toThrow();
  await t.db.transaction(async (tx) => {
    await tx.execute(sql.raw("alter table hook_invocations disable trigger user"));
    await tx.execute(sql`update hook_invocations set actor = jsonb_set(actor, '{label}', '"alice@example.com"') where id = ${bobs[0].id}`);
    await tx.execute(sql.raw("alter table hook_invocations enable trigger user"));
  });
  const broken = await verifyChain(t.db, { table: "hook_invocations" });
  expect(broken.firstBroken).toMatchObject({ id: bobs[0].id });
  await t.db.transaction(async (tx) => {
    await tx.execute(sql.raw("alter table hook_invocations disable trigger user"));
    await tx.execute(sql`update hook_invocations set actor = jsonb_set(actor, '{label}', '"bob@example.com"') where id = ${bobs[0].id}`);
    await tx.execute(sql.raw("alter table hook_invocations enable trigger user"));
  });
  expect((await verifyChain(t.db, { table: "hook_invocations" })).firstBroken).toBeUndefined();

  // Costs per person, and one person's spend.
  await t.execute("update runs set cost_usd = 0.25 where external_session_id = 'policy-bob'");
  const costs = await callRoute(costsRoute.GET, { path: "/api/v1/costs", token: admin });
  const bobsCost = costs.body.byPerson.find((p: { label: string }) => p.label === "bob@example.com");
  expect(bobsCost).toMatchObject({ actorKey: `user:${people.bob.id}`, actorUserId: people.bob.id, costUsd: 0.25 });
  const onlyBob = await callRoute(costsRoute.GET, { path: "/api/v1/costs?actor=bob@example.com", token: admin });
  expect(onlyBob.body.byPerson.map((p: { label: string }) => p.label)).toEqual(["bob@example.com"]);
  expect(onlyBob.body.byDay.reduce((sum: number, d: { costUsd: number }) => sum + d.costUsd, 0)).toBeCloseTo(0.25, 9);
});

test("a person removed from the project is refused on their next call; the others go on", async () => {
  expect((await hookCall(people.carol.bridge, bash("carol-1", "ls", "c1"))).status).toBe(200);
  const lead: Principal = { kind: "user", id: "lead", userId: undefined, label: "lead@example.com", role: "admin", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: true };
  await removeMemberAudited(t.db, lead, { projectId: DEFAULT_PROJECT_ID, userId: people.carol.id });
  const refused = await hookCall(people.carol.bridge, bash("carol-1", "ls", "c2"));
  expect(refused.status).toBe(401);
  expect((await hookCall(people.alice.bridge, bash("alice-2", "ls", "a3"))).status).toBe(200);
});

test("a rule reaches every agent of the person it governs and stops at its project: a role rule holds for a subagent and an admin's CI call, limits per tier count apart, parallel subagents record their own chain", async () => {
  const scoped = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "scopes" }) }))!.id;
  const hook = (spec: Record<string, unknown>) => createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ scope: `agent:${scoped}`, event: "tool.pre", ...spec }), actor: "test" });
  await hook({ id: "admins-grant", matcher: "Bash", when: "actor.role: /^(operator|viewer)$/", action: { type: "block", reason: "Only admins grant permissions", denyIf: "grant-permission" } });
  await hook({ id: "ci-never-grants", matcher: "Bash", when: "actor.tier: headless", action: { type: "block", reason: "CI never grants permissions", denyIf: "grant-permission" } });
  await hook({ id: "reads-interactive", matcher: "Read", when: "actor.tier: interactive", action: { type: "limit", max: 3, windowMs: 60_000, per: "actor" } });
  await hook({ id: "reads-headless", matcher: "Read", when: "actor.tier: headless", action: { type: "limit", max: 2, windowMs: 60_000, per: "actor" } });
  await hook({ id: "globs-counted", matcher: "Glob", action: { type: "limit", max: 1_000, windowMs: 60_000, per: "actor" } });
  // Project-wide in this project: not a rule of the other project's people.
  await createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ id: "no-force-push", scope: "global", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "no force pushes here", denyIf: "push --force-scoped" } }), actor: "test" });
  const leadBridge = await bridgeCredentialOf(admin, "lead-ci");
  const call = (token: string, body: Record<string, unknown>, machine: Record<string, string> = {}) =>
    callRoute(INGEST_ROUTES["claude-code"], { method: "POST", token, headers: { "x-hookplane-agent": "scopes", ...machine }, body });
  const tool = (session: string, name: string, input: Record<string, unknown>, id: string, extra: Record<string, unknown> = {}) =>
    ({ session_id: session, hook_event_name: "PreToolUse", tool_name: name, tool_input: input, tool_use_id: id, ...extra });

  // An operator's subagent inherits the operator's scope: denied. The admin's own agent may; the admin's CI may not.
  const sub = await call(people.alice.bridge, tool("scopes-alice", "Bash", { command: "grant-permission ops" }, "sa1", { agent_id: "helper-1", agent_type: "general-purpose" }));
  expect([decision(sub), sub.body.hookSpecificOutput?.permissionDecisionReason]).toEqual(["deny", "Only admins grant permissions"]);
  expect(decision(await call(leadBridge, tool("scopes-lead", "Bash", { command: "grant-permission ops" }, "la1")))).toBe("allow");
  const leadCi = await call(leadBridge, tool("scopes-lead-ci", "Bash", { command: "grant-permission ops" }, "lc1"), { "x-hookplane-ci": "1" });
  expect([decision(leadCi), leadCi.body.hookSpecificOutput?.permissionDecisionReason]).toEqual(["deny", "CI never grants permissions"]);

  // The interactive and the headless tier have windows of their own.
  const reads = async (machine: Record<string, string>, session: string, n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(decision(await call(people.alice.bridge, tool(session, "Read", { file_path: `/r/${i}` }, `${session}-${i}`), machine)));
    return out;
  };
  expect(await reads({}, "scopes-reads", 4)).toEqual(["allow", "allow", "allow", "deny"]);
  expect(await reads({ "x-hookplane-ci": "1" }, "scopes-reads-ci", 3)).toEqual(["allow", "allow", "deny"]);

  // Two subagents at once: each call's event and ledger row name its own subagent and the session that delegated.
  await Promise.all(
    ["worker-a", "worker-b"].flatMap((agent) =>
      [0, 1, 2].map((i) => call(people.alice.bridge, tool("scopes-parallel", "Glob", { pattern: `${agent}/${i}` }, `${agent}-${i}`, { agent_id: agent, agent_type: "worker" }))),
    ),
  );
  const { rows } = await t.execute(
    `select e.data->>'toolCallId' as call, e.data->>'agentId' as agent, h.actor->'subagent'->>'id' as ledger_subagent, h.actor->'parent'->>'sessionId' as parent
       from run_events e join runs r on r.id = e.run_id join hook_invocations h on h.run_id = e.run_id and h.event_seq = e.seq
      where r.external_session_id = 'scopes-parallel' and e.type = 'tool.pre' and h.hook_key = 'globs-counted' order by 1`,
  );
  expect(rows).toEqual(
    ["worker-a", "worker-b"].flatMap((agent) => [0, 1, 2].map((i) => ({ call: `${agent}-${i}`, agent, ledger_subagent: agent, parent: "scopes-parallel" }))),
  );

  // The other project's person is not governed by this project's rules (their agent of the same name is theirs).
  const other = (await t.execute("select project_id from api_tokens where kind = 'bridge' and name = 'dave-laptop'")).rows[0] as { project_id: string };
  await createAgent(t.db, { projectId: other.project_id, spec: agentSpecSchema.parse({ name: "scopes" }) });
  expect(decision(await call(otherProjectBridge, tool("dave-scopes", "Bash", { command: "git push --force-scoped" }, "d1")))).toBe("allow");
  expect(decision(await call(people.alice.bridge, tool("alice-scopes", "Bash", { command: "git push --force-scoped" }, "a1")))).toBe("deny");
});
