import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { listAudit } from "@/db/queries/audit";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { getKillSwitch } from "@/db/queries/settings";
import { getUserByEmail } from "@/db/queries/users";
import { openSession } from "@/lib/platform/auth/account-service";
import { SESSION_COOKIE } from "@/lib/platform/auth/principal";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { callRoute } from "@/test/api-client";
import * as agentsRoute from "../agents/route";
import * as killSwitchRoute from "../settings/kill-switch/route";
import * as hookRoute from "./[id]/route";
import * as restoreRoute from "./[id]/restore/route";
import * as versionsRoute from "./[id]/versions/route";
import * as reorderRoute from "./reorder/route";
import * as hooksRoute from "./route";
import { addPerson, addToken } from "@/test/people";

let t: TestDatabase;
let admin: string;
let operator: string;
let viewer: string;
let agentId: string;

const noProd = {
  id: "no-prod",
  name: "No writes under /srv/prod",
  event: "tool.pre",
  scope: "agent:coding-agent",
  matcher: "write_file",
  action: { type: "block", reason: "Production is off-limits", denyIf: "/srv/prod" },
};

const paths = (body: { error: { issues?: { path: string }[] } }) => (body.error.issues ?? []).map((i) => i.path);

async function post(body: unknown, token = admin) {
  return callRoute(hooksRoute.POST, { method: "POST", token, body });
}
async function patch(id: string, body: unknown, token = admin) {
  return callRoute(hookRoute.PATCH, { method: "PATCH", token, params: { id }, body });
}
async function list(query: string, token = viewer) {
  return callRoute(hooksRoute.GET, { token, path: `/api/v1/hooks${query}` });
}

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  admin = (await addToken(t.db, { role: "admin", name: "setup", userId: (await addPerson(t.db, { email: "admin@example.com", instanceAdmin: true })).id })).token;
  const token = async (role: "operator" | "viewer") => (await addToken(t.db, { role, name: role })).token;
  operator = await token("operator");
  viewer = await token("viewer");
  const agent = await callRoute(agentsRoute.POST, { method: "POST", token: admin, body: { name: "coding-agent", tools: ["write_file", "shell"] } });
  agentId = agent.body.id;
});
afterAll(async () => {
  await t.drop();
});

describe("hooks CRUD", () => {
  let id: string;

  test("creates a hook with its scope normalized to the agent's id and version 1", async () => {
    const created = await post(noProd, operator);
    expect(created.status).toBe(201);
    id = created.body.id;
    expect(created.body).toMatchObject({
      key: "no-prod",
      scope: `agent:${agentId}`,
      position: 0,
      version: 1,
      enabled: true,
      spec: { id: "no-prod", event: "tool.pre", mode: "enforce", scope: `agent:${agentId}`, action: { type: "block", denyIf: "/srv/prod" } },
    });
    expect(Object.keys(created.body).sort()).toEqual(["createdAt", "enabled", "id", "instance", "key", "position", "scope", "spec", "updatedAt", "version"]);
    const read = await callRoute(hookRoute.GET, { token: viewer, params: { id } });
    expect(read.body.spec.matcher).toBe("write_file");
  });

  test("the same id in the same scope is 409; in another scope it is fine", async () => {
    const dup = await post({ ...noProd, scope: `agent:${agentId}` });
    expect(dup.status).toBe(409);
    expect(dup.body.error.message).toContain('"no-prod" already exists');
    expect((await post({ ...noProd, scope: "global" })).status).toBe(201);
  });

  test("bad input is 422 with zod paths and readable messages", async () => {
    const event = await post({ ...noProd, id: "x1", event: "tool.pree" });
    expect(event.status).toBe(422);
    expect(paths(event.body)).toEqual(["event"]);
    expect(event.body.error.message).toContain('did you mean "tool.pre"');

    const regex = await post({ ...noProd, id: "x2", action: { type: "block", denyIf: "(unclosed" } });
    expect(paths(regex.body)).toEqual(["action.denyIf"]);
    expect(regex.body.error.issues[0].message).toContain("invalid regex");

    const crossField = await post({ id: "x3", event: "session.end", action: { type: "approve" } });
    expect(crossField.status).toBe(422);
    expect(paths(crossField.body)).toEqual(["action.type"]);

    const missing = await post({ event: "tool.pre", action: { type: "webhook" } });
    expect(paths(missing.body)).toEqual(expect.arrayContaining(["id", "action.url"]));

    const agent = await post({ ...noProd, id: "x4", scope: "agent:nobody" });
    expect(agent.status).toBe(422);
    expect(agent.body.error.issues).toEqual([{ path: "scope", message: 'no agent has the id or name "nobody"' }]);
    const schedule = await post({ ...noProd, id: "x5", scope: "schedule:not-a-uuid" });
    expect(paths(schedule.body)).toEqual(["scope"]);
  });

  test("a denyIf naming a detector that does not exist, or one that cannot read there, is 422 at its path and stores nothing", async () => {
    const count = async () => ((await t.execute("select count(*)::integer as n from hooks where key in ('x6', 'x7', 'x8')")).rows as { n: number }[])[0].n;
    const unknown = await post({ ...noProd, id: "x6", action: { type: "block", reason: "no", denyIf: { detects: ["everything"] } } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.issues).toEqual([{ path: "action.denyIf.detects[0]", message: expect.stringContaining('unknown detector "everything"') }]);
    const shellOnOutput = await post({ id: "x7", event: "session.start", action: { type: "tool", tool: "memory", denyIf: { detects: ["pii", "shell.destructive"] } } });
    expect(shellOnOutput.status).toBe(422);
    expect(paths(shellOnOutput.body)).toEqual(["action.denyIf.detects[1]"]);
    expect(await count()).toBe(0);
    // The right side: the same hook with detectors that exist is stored as written.
    const saved = await post({ ...noProd, id: "x8", action: { type: "block", reason: "no", denyIf: { detects: ["secrets", "shell.destructive"], minConfidence: "high" } } });
    expect(saved.status).toBe(201);
    expect(saved.body.spec.action).toEqual({ type: "block", reason: "no", denyIf: { detects: ["secrets", "shell.destructive"], minConfidence: "high" } });
    expect(await count()).toBe(1);
    expect((await callRoute(hookRoute.DELETE, { method: "DELETE", token: admin, params: { id: saved.body.id } })).status).toBe(204);
  });

  test("patch makes a new version; null clears a field; an unchanged hook makes none", async () => {
    const v2 = await patch(id, { matcher: "write_file|shell" }, operator);
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({ version: 2, spec: { matcher: "write_file|shell", name: noProd.name } });
    const v3 = await patch(id, { matcher: null, enabled: false });
    expect(v3.body.version).toBe(3);
    expect(v3.body.enabled).toBe(false);
    expect(v3.body.spec).not.toHaveProperty("matcher");
    const same = await patch(id, { enabled: false });
    expect(same.body.version).toBe(3);

    expect(paths((await patch(id, { colour: "red" })).body)).toEqual(["colour"]);
    const bad = await patch(id, { action: { type: "block", denyIf: "[a-" } });
    expect(bad.status).toBe(422);
    expect(paths(bad.body)).toEqual(["action.denyIf"]);
    expect((await patch("not-a-uuid", { enabled: true })).status).toBe(404);
    expect((await patch("00000000-0000-4000-8000-000000000000", { enabled: true })).status).toBe(404);
  });

  test("versions list newest first, page, and restore makes the old spec current as a new version", async () => {
    const all = await callRoute(versionsRoute.GET, { token: viewer, params: { id } });
    expect(all.body.items.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect(all.body.items[2]).toMatchObject({ createdBy: "token:operator", spec: { matcher: "write_file" } });
    const first = await callRoute(versionsRoute.GET, { token: viewer, params: { id }, path: "/?limit=2" });
    expect(first.body.items).toHaveLength(2);
    const rest = await callRoute(versionsRoute.GET, { token: viewer, params: { id }, path: `/?limit=2&cursor=${first.body.nextCursor}` });
    expect(rest.body.items.map((v: { version: number }) => v.version)).toEqual([1]);
    expect(rest.body.nextCursor).toBeNull();

    const restored = await callRoute(restoreRoute.POST, { method: "POST", token: operator, params: { id }, body: { version: 1 } });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ version: 4, enabled: true, spec: { matcher: "write_file" } });
    expect((await callRoute(restoreRoute.POST, { method: "POST", token: operator, params: { id }, body: { version: 99 } })).status).toBe(404);
    expect((await callRoute(restoreRoute.POST, { method: "POST", token: viewer, params: { id }, body: { version: 1 } })).status).toBe(403);
  });

  test("every change has an audit row with before and after", async () => {
    const audit = await listAudit(t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "hook", entityId: id, limit: 10 });
    expect(audit.map((a) => a.action)).toEqual(["hook.restore", "hook.update", "hook.update", "hook.create"]);
    expect(audit[0]).toMatchObject({ actor: "token:operator", before: { version: 3 }, after: { version: 4, restoredFrom: 1 } });
    expect(audit[1].before).toMatchObject({ version: 2, enabled: true });
    expect(audit[1].after).toMatchObject({ version: 3, enabled: false });
    expect(audit[3].before).toBeNull();
  });

  test("delete is 204 for an operator, 403 for a viewer, then the hook is gone", async () => {
    expect((await callRoute(hookRoute.DELETE, { method: "DELETE", token: viewer, params: { id } })).status).toBe(403);
    expect((await callRoute(hookRoute.DELETE, { method: "DELETE", token: operator, params: { id } })).status).toBe(204);
    expect((await callRoute(hookRoute.GET, { token: viewer, params: { id } })).status).toBe(404);
    const audit = await listAudit(t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "hook", entityId: id, limit: 1 });
    expect(audit[0]).toMatchObject({ action: "hook.delete", before: { key: "no-prod", version: 4 } });
  });
});

describe("roles", () => {
  test("a viewer may read but not write", async () => {
    expect((await list("")).status).toBe(200);
    const denied = await post({ ...noProd, id: "viewer-hook" }, viewer);
    expect(denied.status).toBe(403);
    expect((await callRoute(hooksRoute.GET)).status).toBe(401);
  });

  test("only admins create or change command and code hooks", async () => {
    const command = { id: "jq-check", event: "tool.pre", action: { type: "command", command: "jq -r .toolName" } };
    const denied = await post(command, operator);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toContain("Only admins may create or change command hooks");
    expect((await post({ id: "mod", event: "tool.pre", action: { type: "code", module: "redact" } }, operator)).status).toBe(403);

    const created = await post(command, admin);
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await patch(id, { enabled: false }, operator)).status).toBe(403);
    expect((await callRoute(hookRoute.DELETE, { method: "DELETE", token: operator, params: { id } })).status).toBe(403);
    // An operator cannot turn their own hook into a command hook either.
    const log = await post({ id: "plain-log", event: "session.end", action: { type: "log" } }, operator);
    expect((await patch(log.body.id, { action: { type: "command", command: "rm -rf /" } }, operator)).status).toBe(403);
    expect((await patch(id, { enabled: false }, admin)).status).toBe(200);
  });
});

describe("lists and order", () => {
  const ids: string[] = [];

  test("global hooks first, then agents, each in position order; filters by scope (name or id) and event", async () => {
    for (const key of ["first", "second", "third"]) {
      ids.push((await post({ id: key, event: "session.end", action: { type: "log" } }, operator)).body.id);
    }
    await post({ ...noProd, id: "agent-guard" });
    const all = await list("?limit=200");
    const scopes = all.body.items.map((h: { scope: string }) => h.scope);
    expect(scopes.indexOf(`agent:${agentId}`)).toBeGreaterThan(scopes.lastIndexOf("global"));

    const agentOnly = await list("?scope=agent:coding-agent");
    expect(agentOnly.body.items.map((h: { key: string }) => h.key)).toEqual(["agent-guard"]);
    const globalLogs = await list("?scope=global&event=session.end");
    expect(globalLogs.body.items.map((h: { key: string }) => h.key)).toEqual(["plain-log", "first", "second", "third"]);

    const badEvent = await list("?event=tool.pree");
    expect(badEvent.status).toBe(422);
    expect(paths(badEvent.body)).toEqual(["event"]);
    expect((await list("?scope=agent:nobody")).status).toBe(422);
    const forged = await list("?cursor=garbage");
    expect(forged.status).toBe(422);
    expect(paths(forged.body)).toEqual(["cursor"]);
  });

  test("pages with cursors in execution order", async () => {
    const everything = (await list("?limit=200")).body.items.map((h: { id: string }) => h.id);
    const seen: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const page: { body: { items: { id: string }[]; nextCursor: string | null } } = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.body.items.map((h) => h.id));
      cursor = page.body.nextCursor;
    }
    expect(seen).toEqual(everything);
  });

  test("reorder sets the order of a scope, refuses stale or repeated lists, and is audited", async () => {
    const before = (await list("?scope=global")).body.items.map((h: { id: string }) => h.id) as string[];
    const reversed = [...before].reverse();
    const done = await callRoute(reorderRoute.POST, { method: "POST", token: operator, body: { scope: "global", ids: reversed } });
    expect(done.status).toBe(200);
    expect(done.body.items.map((h: { id: string }) => h.id)).toEqual(reversed);
    expect(done.body.items.map((h: { position: number }) => h.position)).toEqual(reversed.map((_, i) => i));
    expect((await list("?scope=global")).body.items.map((h: { id: string }) => h.id)).toEqual(reversed);

    const stale = await callRoute(reorderRoute.POST, { method: "POST", token: operator, body: { scope: "global", ids: reversed.slice(1) } });
    expect(stale.status).toBe(409);
    const twice = await callRoute(reorderRoute.POST, { method: "POST", token: operator, body: { scope: "global", ids: [ids[0], ids[0]] } });
    expect(twice.status).toBe(422);
    expect(paths(twice.body)).toEqual(["ids[1]"]);
    expect((await callRoute(reorderRoute.POST, { method: "POST", token: viewer, body: { scope: "global", ids: reversed } })).status).toBe(403);

    const [audit] = await listAudit(t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "hook_scope", entityId: "global", limit: 1 });
    expect(audit.action).toBe("hook.reorder");
    expect((audit.after as string[])[0]).toBe("third");
  });

  test("a hook moved to another scope goes to its end", async () => {
    const moved = await patch(ids[0], { scope: "agent:coding-agent" }, operator);
    expect(moved.body).toMatchObject({ scope: `agent:${agentId}`, position: 1, version: 2 });
  });
});

describe("kill switch", () => {
  test("anyone reads it, only instance admins flip it, each flip is audited at the instance level", async () => {
    // The first admin is an instance admin; tokens (even an admin's) never act for the instance.
    const user = (await getUserByEmail(t.db, { email: "admin@example.com" }))!;
    const session = { cookie: `${SESSION_COOKIE}=${await openSession(t.db, { userId: user.id })}`, origin: "http://localhost" };
    expect((await callRoute(killSwitchRoute.GET, { token: viewer })).body).toMatchObject({ enabled: false });
    const denied = await callRoute(killSwitchRoute.PUT, { method: "PUT", token: operator, body: { enabled: true } });
    expect(denied.status).toBe(403);
    const projectAdmin = await callRoute(killSwitchRoute.PUT, { method: "PUT", token: admin, body: { enabled: true } });
    expect(projectAdmin.status).toBe(403);
    const bad = await callRoute(killSwitchRoute.PUT, { method: "PUT", headers: session, body: { enabled: "yes" } });
    expect(bad.status).toBe(422);
    expect(paths(bad.body)).toEqual(["enabled"]);

    const on = await callRoute(killSwitchRoute.PUT, { method: "PUT", headers: session, body: { enabled: true } });
    expect(on.status).toBe(200);
    expect(on.body.enabled).toBe(true);
    expect(await getKillSwitch(t.db)).toBe(true);
    expect((await callRoute(killSwitchRoute.GET, { token: viewer })).body.enabled).toBe(true);

    await callRoute(killSwitchRoute.PUT, { method: "PUT", headers: session, body: { enabled: false } });
    expect(await getKillSwitch(t.db)).toBe(false);
    const audit = await listAudit(t.db, { projectId: null, entityType: "setting", entityId: "hooks_kill_switch", limit: 5 });
    expect(audit.map((a) => a.after)).toEqual([{ enabled: false }, { enabled: true }]);
    expect(audit[1]).toMatchObject({ actor: "admin@example.com", before: { enabled: false } });
  });
});
