/**
 * Hooks, the ledger, the audit log and secrets between projects: another project's hook, secret,
 * ledger row or audit entry is not found (404, and nothing changes); an instance-wide hook is met
 * by the runs of every project, first, and only an instance admin may change it.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { getHookById } from "@/db/queries/hooks";
import { insertHookInvocations } from "@/db/queries/hook-invocations";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { openSession } from "@/lib/platform/auth/account-service";
import { PROJECT_HEADER } from "@/lib/platform/auth/project-access";
import { SESSION_COOKIE } from "@/lib/platform/auth/principal";
import { createRunHookRuntime } from "./hook-runtime-factory";
import { loadRunHooks } from "@/lib/features/runs/run-hooks";
import { resolveSecret } from "@/lib/features/secrets/secret-store";
import { forgetSecretBox, getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { callRoute } from "@/test/api-client";
import { setEnv } from "@/test/config-env";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPerson, addProject, addToken, DEFAULT_PROJECT_ID } from "@/test/people";
import * as auditRoute from "@/app/api/v1/audit/route";
import * as hookRoute from "@/app/api/v1/hooks/[id]/route";
import * as restoreRoute from "@/app/api/v1/hooks/[id]/restore/route";
import * as versionsRoute from "@/app/api/v1/hooks/[id]/versions/route";
import * as reorderRoute from "@/app/api/v1/hooks/reorder/route";
import * as hooksRoute from "@/app/api/v1/hooks/route";
import * as ledgerRoute from "@/app/api/v1/ledger/route";
import * as secretsRoute from "@/app/api/v1/secrets/route";
import * as secretRoute from "@/app/api/v1/secrets/[name]/route";

let t: TestDatabase;
let projectB: string;
/** Admin tokens of the default project (A) and of project B. */
let adminA: string;
let adminB: string;
/** An instance admin's session headers, acting in project A. */
let root: Record<string, string>;
let agentA: string;
let agentB: string;
const originalKey = process.env.HOOKPLANE_SECRET_KEY;

const guard = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  event: "tool.pre",
  scope: "global",
  matcher: "write_file",
  action: { type: "block", reason: `${id} says no` },
  ...extra,
});

beforeAll(async () => {
  setEnv({ HOOKPLANE_SECRET_KEY: randomBytes(32).toString("base64") });
  forgetSecretBox();
  t = await createTestDatabase();
  installDatabase(t);
  projectB = (await addProject(t.db, { slug: "b" })).id;
  adminA = (await addToken(t.db, { role: "admin" })).token;
  adminB = (await addToken(t.db, { role: "admin", projectId: projectB })).token;
  const person = await addPerson(t.db, { email: "root@example.com", instanceAdmin: true });
  const session = await openSession(t.db, { userId: person.id });
  root = { cookie: `${SESSION_COOKIE}=${session}`, origin: "http://localhost", [PROJECT_HEADER]: "default" };
  agentA = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "worker" }) }))!.id;
  agentB = (await createAgent(t.db, { projectId: projectB, spec: agentSpecSchema.parse({ name: "worker" }) }))!.id;
});
afterAll(async () => {
  await t.drop();
  setEnv({ HOOKPLANE_SECRET_KEY: originalKey });
  forgetSecretBox();
});

describe("another project's hook is not found", () => {
  let id: string;
  beforeAll(async () => {
    const created = await callRoute(hooksRoute.POST, { method: "POST", token: adminA, body: guard("a-guard") });
    expect(created.status).toBe(201);
    expect(created.body.instance).toBe(false);
    id = created.body.id;
  });

  test("read, versions, update, restore, delete: 404 and the hook is unchanged", async () => {
    expect((await callRoute(hookRoute.GET, { token: adminB, params: { id } })).status).toBe(404);
    expect((await callRoute(versionsRoute.GET, { token: adminB, params: { id } })).status).toBe(404);
    const patched = await callRoute(hookRoute.PATCH, { method: "PATCH", token: adminB, params: { id }, body: { enabled: false } });
    expect(patched.status).toBe(404);
    const restored = await callRoute(restoreRoute.POST, { method: "POST", token: adminB, params: { id }, body: { version: 1 } });
    expect(restored.status).toBe(404);
    expect((await callRoute(hookRoute.DELETE, { method: "DELETE", token: adminB, params: { id } })).status).toBe(404);
    const row = await getHookById(t.db, { projectId: DEFAULT_PROJECT_ID, id });
    expect(row).toMatchObject({ enabled: true, version: 1, projectId: DEFAULT_PROJECT_ID });
    // The owner still reads it.
    expect((await callRoute(hookRoute.GET, { token: adminA, params: { id } })).body.key).toBe("a-guard");
  });

  test("reorder naming it: 404, its position unchanged", async () => {
    const before = await getHookById(t.db, { projectId: DEFAULT_PROJECT_ID, id });
    const answer = await callRoute(reorderRoute.POST, { method: "POST", token: adminB, body: { scope: "global", ids: [id] } });
    expect(answer.status).toBe(404);
    expect((await getHookById(t.db, { projectId: DEFAULT_PROJECT_ID, id }))?.position).toBe(before?.position);
  });

  test("lists: each project sees its own hooks only; the same key may exist in both", async () => {
    const inB = await callRoute(hooksRoute.POST, { method: "POST", token: adminB, body: guard("a-guard") });
    expect(inB.status).toBe(201);
    const listB = await callRoute(hooksRoute.GET, { token: adminB, path: "/api/v1/hooks?instance=false" });
    expect(listB.body.items.map((h: { id: string }) => h.id)).toEqual([inB.body.id]);
    const listA = await callRoute(hooksRoute.GET, { token: adminA, path: "/api/v1/hooks?instance=false" });
    expect(listA.body.items.map((h: { id: string }) => h.id)).toEqual([id]);
  });

  test("a scope naming another project's agent is refused", async () => {
    const answer = await callRoute(hooksRoute.POST, { method: "POST", token: adminB, body: guard("x", { scope: `agent:${agentA}` }) });
    expect(answer.status).toBe(422);
  });
});

describe("instance-wide hooks", () => {
  let id: string;
  beforeAll(async () => {
    const created = await callRoute(hooksRoute.POST, { method: "POST", headers: root, path: "/api/v1/hooks?instance=true", body: guard("everywhere") });
    expect(created.status).toBe(201);
    expect(created.body.instance).toBe(true);
    id = created.body.id;
  });

  test("only an instance admin makes one, and only with scope global", async () => {
    const refused = await callRoute(hooksRoute.POST, { method: "POST", token: adminA, path: "/api/v1/hooks?instance=true", body: guard("mine") });
    expect(refused.status).toBe(403);
    const scoped = await callRoute(hooksRoute.POST, {
      method: "POST",
      headers: root,
      path: "/api/v1/hooks?instance=true",
      body: guard("scoped", { scope: `agent:${agentA}` }),
    });
    expect(scoped.status).toBe(422);
  });

  test("every project's runs meet it, before the project's own hooks", async () => {
    const inA = await loadRunHooks(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agentA });
    const inB = await loadRunHooks(t.db, { projectId: projectB, agentId: agentB });
    expect(inA.map((h) => h.id)).toEqual(["everywhere", "a-guard"]);
    expect(inB.map((h) => h.id)).toEqual(["everywhere", "a-guard"]);
    // Both lists show it, marked, first.
    const listed = await callRoute(hooksRoute.GET, { token: adminB });
    expect(listed.body.items.map((h: { key: string; instance: boolean }) => [h.key, h.instance])).toEqual([
      ["everywhere", true],
      ["a-guard", false],
    ]);
  });

  test("a project admin reads it but may not change, reorder or delete it (403, unchanged)", async () => {
    expect((await callRoute(hookRoute.GET, { token: adminB, params: { id } })).status).toBe(200);
    const patched = await callRoute(hookRoute.PATCH, { method: "PATCH", token: adminA, params: { id }, body: { enabled: false } });
    expect(patched.status).toBe(403);
    expect((await callRoute(hookRoute.DELETE, { method: "DELETE", token: adminB, params: { id } })).status).toBe(403);
    const reordered = await callRoute(reorderRoute.POST, { method: "POST", token: adminA, body: { scope: "global", instance: true, ids: [id] } });
    expect(reordered.status).toBe(403);
    expect(await getHookById(t.db, { projectId: projectB, id })).toMatchObject({ enabled: true, version: 1, projectId: null });
  });

  test("an instance admin changes it; the audit entry is instance-level", async () => {
    const patched = await callRoute(hookRoute.PATCH, { method: "PATCH", headers: root, params: { id }, body: { enabled: false } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ version: 2, enabled: false, instance: true });
    const projectAudit = await callRoute(auditRoute.GET, { token: adminA, path: "/api/v1/audit?entityType=hook" });
    expect(projectAudit.body.items.map((a: { entityId: string }) => a.entityId)).not.toContain(id);
    const refused = await callRoute(auditRoute.GET, { token: adminA, path: "/api/v1/audit?scope=instance" });
    expect(refused.status).toBe(403);
    const instanceAudit = await callRoute(auditRoute.GET, { headers: root, path: "/api/v1/audit?scope=instance&entityType=hook" });
    expect(instanceAudit.status).toBe(200);
    expect(instanceAudit.body.items.map((a: { action: string; entityId: string }) => [a.action, a.entityId])).toEqual([
      ["hook.update", id],
      ["hook.create", id],
    ]);
  });
});

describe("the ledger and the audit log are per project", () => {
  test("each project's ledger lists the rows its runs wrote, and the runtime writes the run's project", async () => {
    const row = { event: "tool.pre", hookKey: "guard", matched: true, verdict: "block" };
    await insertHookInvocations(t.db, { rows: [{ ...row, projectId: DEFAULT_PROJECT_ID, reason: "in A" }] });
    // What a run of project B dispatches is recorded in B.
    const writes: Promise<unknown>[] = [];
    const runtime = createRunHookRuntime({ db: t.db, projectId: projectB, track: (w) => writes.push(w) });
    const hook = { ...hookSpecSchema.parse(guard("b-ledger")), version: 1 };
    await runtime.dispatch([hook], { type: "tool.pre", runId: "00000000-0000-4000-8000-00000000000b", agentId: agentB, agentName: "worker", ts: Date.now(), data: { toolName: "write_file", toolInput: {} } });
    await Promise.all(writes);
    const inB = await callRoute(ledgerRoute.GET, { token: adminB });
    expect(inB.body.items.map((r: { hookKey: string; projectId: string }) => [r.hookKey, r.projectId])).toEqual([["b-ledger", projectB]]);
    const inA = await callRoute(ledgerRoute.GET, { token: adminA });
    expect(inA.body.items.map((r: { reason: string }) => r.reason)).toEqual(["in A"]);
    // Another project's agent as a filter is unknown.
    expect((await callRoute(ledgerRoute.GET, { token: adminA, path: `/api/v1/ledger?agent=${agentB}` })).status).toBe(404);
  });

  test("a project's audit list holds its own entries only", async () => {
    const inB = await callRoute(auditRoute.GET, { token: adminB, path: "/api/v1/audit?entityType=hook" });
    const keys = inB.body.items.map((a: { after: { key?: string } | null }) => a.after?.key);
    expect(keys).toEqual(["a-guard"]);
    expect(inB.body.items.every((a: { projectId: string }) => a.projectId === projectB)).toBe(true);
  });
});

describe("secrets are per project", () => {
  test("a name may exist in both; lists, deletes and the runtime see the project's own", async () => {
    const put = (token: string, value: string) =>
      callRoute(secretRoute.PUT, { method: "PUT", token, params: { name: "DEPLOY_TOKEN" }, body: { value, hosts: ["api.example.com"] } });
    expect((await put(adminA, "value-of-a")).status).toBe(201);
    const list = async (token: string) => (await callRoute(secretsRoute.GET, { token })).body.items.map((s: { name: string }) => s.name);
    expect(await list(adminB)).toEqual([]);
    expect((await callRoute(secretRoute.DELETE, { method: "DELETE", token: adminB, params: { name: "DEPLOY_TOKEN" } })).status).toBe(404);
    expect(await list(adminA)).toEqual(["DEPLOY_TOKEN"]);
    const resolve = (projectId: string) => resolveSecret(t.db, getSecretBox, { projectId, name: "DEPLOY_TOKEN", envSecrets: new Map() });
    expect(await resolve(projectB)).toBeUndefined();
    expect((await resolve(DEFAULT_PROJECT_ID))?.value).toBe("value-of-a");

    expect((await put(adminB, "value-of-b")).status).toBe(201);
    expect((await resolve(projectB))?.value).toBe("value-of-b");
    expect((await resolve(DEFAULT_PROJECT_ID))?.value).toBe("value-of-a");
  });
});
