/**
 * Service accounts (issue 27): CI's coding agents and scheduled jobs act as a named account, not as
 * a person and not as an anonymous token. Only a project's admins make them and their tokens; every
 * record of their calls names the account; a hook can hold for it alone; deleting it ends its tokens
 * on their next call. From the wrong side: operators, another project's admin, a bad name, a taken
 * name, the account's own bridge credential on the rest of the API.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { createHook } from "@/db/queries/hooks";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPerson, addProject, addToken } from "@/test/people";
import * as accountsRoute from "@/app/api/v1/service-accounts/route";
import * as accountRoute from "@/app/api/v1/service-accounts/[id]/route";
import * as credentialsRoute from "@/app/api/v1/service-accounts/[id]/credentials/route";
import * as hooksRoute from "@/app/api/v1/hooks/route";
import * as runsRoute from "@/app/api/v1/runs/route";
import * as ledgerRoute from "@/app/api/v1/ledger/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import { INGEST_ROUTES } from "./ingest-routes";

let t: TestDatabase;
let admin: string;
let operator: string;
let aliceBridge: string;
let otherAdmin: string;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  const lead = await addPerson(t.db, { email: "lead@example.com", role: "admin" });
  admin = (await addToken(t.db, { role: "admin", userId: lead.id, name: "lead" })).token;
  const op = await addPerson(t.db, { email: "op@example.com", role: "operator" });
  operator = (await addToken(t.db, { role: "operator", userId: op.id, name: "op" })).token;
  const alice = await addPerson(t.db, { email: "alice@example.com", role: "operator" });
  aliceBridge = (await addToken(t.db, { role: "viewer", kind: "bridge", userId: alice.id, name: "alice-laptop" })).token;
  const other = await addProject(t.db, { slug: "other" });
  const otherLead = await addPerson(t.db, { email: "other-lead@example.com", role: "admin", projectId: other.id });
  otherAdmin = (await addToken(t.db, { role: "admin", userId: otherLead.id, projectId: other.id, name: "other-lead" })).token;
  const agent = await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "dev" }) });
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({
      id: "ci-no-prod",
      scope: `agent:${agent!.id}`,
      event: "tool.pre",
      matcher: "Bash",
      when: "actor.service: ci-deploy",
      action: { type: "block", reason: "CI never applies to prod", denyIf: "kubectl apply" },
    }),
    actor: "test",
  });
});
afterAll(async () => {
  await t?.drop();
});

const bash = (session: string, command: string, id: string) => ({ session_id: session, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: id });
function hookCall(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return callRoute(INGEST_ROUTES["claude-code"], { method: "POST", token, headers: { "x-hookplane-agent": "dev", ...headers }, body });
}
const decision = (res: { body: { hookSpecificOutput?: { permissionDecision?: string } } }) => res.body.hookSpecificOutput?.permissionDecision ?? "allow";

test("only admins make service accounts and their tokens; a bad or taken name is refused at its field", async () => {
  const byOperator = await callRoute(accountsRoute.POST, { method: "POST", token: operator, body: { name: "ci-deploy" } });
  expect(byOperator.status).toBe(403);
  const badName = await callRoute(accountsRoute.POST, { method: "POST", token: admin, body: { name: "CI Deploy!" } });
  expect(badName.status).toBe(422);
  expect(JSON.stringify(badName.body)).toContain('"name"');
  const made = await callRoute(accountsRoute.POST, { method: "POST", token: admin, body: { name: "ci-deploy", description: "GitHub Actions" } });
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({ name: "ci-deploy", description: "GitHub Actions", createdBy: "token:lead" });
  const again = await callRoute(accountsRoute.POST, { method: "POST", token: admin, body: { name: "ci-deploy" } });
  expect(again.status).toBe(409);
  const operatorIssues = await callRoute(credentialsRoute.POST, { method: "POST", token: operator, params: { id: made.body.id }, body: { name: "gha", kind: "bridge" } });
  expect(operatorIssues.status).toBe(403);
  // Another project's admin neither sees nor reaches it.
  expect((await callRoute(accountsRoute.GET, { token: otherAdmin })).body.items).toEqual([]);
  expect((await callRoute(credentialsRoute.POST, { method: "POST", token: otherAdmin, params: { id: made.body.id }, body: { name: "x", kind: "api" } })).status).toBe(404);
  expect((await callRoute(accountRoute.DELETE, { method: "DELETE", token: otherAdmin, params: { id: made.body.id } })).status).toBe(404);
  // An API token of a service account is viewer or operator: configuration stays a person's act.
  const asAdmin = await callRoute(credentialsRoute.POST, { method: "POST", token: admin, params: { id: made.body.id }, body: { name: "x", kind: "api", role: "admin" } });
  expect(asAdmin.status).toBe(422);
  const audit = (await t.execute("select actor, action, entity_id from audit_log where entity_type = 'service_account'")).rows;
  expect(audit).toEqual([{ actor: "token:lead", action: "service_account.create", entity_id: made.body.id }]);
});

test("CI's coding agent acts as the account: named on the run and every ledger row, governed by a rule for it alone, refused elsewhere; deleting the account ends its tokens", async () => {
  const list = await callRoute(accountsRoute.GET, { token: admin });
  const account = list.body.items.find((a: { name: string }) => a.name === "ci-deploy");
  const bridge = await callRoute(credentialsRoute.POST, { method: "POST", token: admin, params: { id: account.id }, body: { name: "github-actions", kind: "bridge" } });
  expect(bridge.status).toBe(201);
  expect(bridge.body).toMatchObject({ kind: "bridge", name: "github-actions", serviceAccount: { id: account.id, name: "ci-deploy" } });
  expect(bridge.body.token).toMatch(/^hpb_/);
  const api = await callRoute(credentialsRoute.POST, { method: "POST", token: admin, params: { id: account.id }, body: { name: "nightly-report", kind: "api", role: "viewer" } });
  expect(api.status).toBe(201);

  // The rule holds for the account and not for a person running the same command.
  const ci = await hookCall(bridge.body.token, bash("gha-run-1", "kubectl apply -f prod.yml", "c1"), { "x-hookplane-ci": "1", "x-hookplane-host": "runner-7" });
  expect(decision(ci)).toBe("deny");
  expect(JSON.stringify(ci.body)).toContain("CI never applies to prod");
  expect(decision(await hookCall(aliceBridge, bash("alice-1", "kubectl apply -f prod.yml", "a1")))).toBe("allow");

  // The run and every ledger row of the call name the account, not a person and not a token.
  const [run] = (await t.execute("select id, actor_key, actor_user_id, actor_label, actor_host from runs where external_session_id = 'gha-run-1'")).rows as Record<string, unknown>[];
  expect(run).toMatchObject({ actor_key: `service:${account.id}`, actor_user_id: null, actor_label: "service:ci-deploy", actor_host: "runner-7" });
  const ledger = (await t.execute("select actor_key, actor from hook_invocations where run_id = $1", [run.id])).rows as { actor_key: string; actor: Record<string, unknown> }[];
  expect(ledger.length).toBeGreaterThan(0);
  for (const row of ledger) {
    expect(row.actor_key).toBe(`service:${account.id}`);
    expect(row.actor).toMatchObject({ service: "ci-deploy", label: "service:ci-deploy", tier: "headless", host: "runner-7" });
  }
  const apiRun = await callRoute(runsRoute.GET, { token: admin, path: "/api/v1/runs" });
  expect(apiRun.body.items.find((r: { id: string }) => r.id === run.id).actor).toMatchObject({ label: "service:ci-deploy" });

  // The account's bridge credential reaches nothing but the ingest endpoints.
  expect((await callRoute(hooksRoute.GET, { token: bridge.body.token })).status).toBe(403);
  expect((await callRoute(runsRoute.GET, { token: bridge.body.token })).status).toBe(403);
  // Its API token acts with its own role: it reads, and cannot change hooks.
  expect((await callRoute(ledgerRoute.GET, { token: api.body.token })).status).toBe(200);
  const hookByScript = await callRoute(hooksRoute.POST, { method: "POST", token: api.body.token, body: { id: "x", event: "tool.pre", action: { type: "block" } } });
  expect(hookByScript.status).toBe(403);

  // Admins see whose tokens they are, and how many the account has.
  const tokens = (await callRoute(tokensRoute.GET, { token: admin })).body.items.filter((i: { serviceAccountName: string | null }) => i.serviceAccountName === "ci-deploy");
  expect(tokens.map((i: { name: string; kind: string }) => `${i.kind} ${i.name}`).sort()).toEqual(["api nightly-report", "bridge github-actions"]);
  const listed = (await callRoute(accountsRoute.GET, { token: admin })).body.items.find((a: { id: string }) => a.id === account.id);
  expect(listed.activeTokens).toBe(2);
  expect(listed.lastUsedAt).not.toBeNull();

  // Deleted: both tokens are refused on their next call (no cache keeps them); the person goes on.
  expect((await callRoute(accountRoute.DELETE, { method: "DELETE", token: admin, params: { id: account.id } })).status).toBe(200);
  expect((await hookCall(bridge.body.token, bash("gha-run-1", "ls", "c2"), { "x-hookplane-ci": "1" })).status).toBe(401);
  expect((await callRoute(ledgerRoute.GET, { token: api.body.token })).status).toBe(401);
  expect((await hookCall(aliceBridge, bash("alice-1", "ls", "a2"))).status).toBe(200);
  // The record of what it did stays, naming it.
  expect((await t.execute("select actor_label from runs where id = $1", [run.id])).rows).toEqual([{ actor_label: "service:ci-deploy" }]);
  const deleted = (await t.execute("select actor, action from audit_log where entity_type = 'service_account' and action = 'service_account.delete'")).rows;
  expect(deleted).toEqual([{ actor: "token:lead", action: "service_account.delete" }]);
});
