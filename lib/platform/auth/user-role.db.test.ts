/**
 * People and projects through the API: who may manage whose members, a token's project, a
 * demotion that holds at once, and the admins that must remain (user-service.ts,
 * project-service.ts). Route handlers are called directly, as the server calls them.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as projectsRoute from "@/app/api/v1/projects/route";
import * as projectRoute from "@/app/api/v1/projects/[slug]/route";
import * as membersRoute from "@/app/api/v1/projects/[slug]/members/route";
import * as memberRoute from "@/app/api/v1/projects/[slug]/members/[userId]/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import * as usersRoute from "@/app/api/v1/users/route";
import * as userRoute from "@/app/api/v1/users/[id]/route";
import { installDatabase } from "@/db/client";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPerson, addProject, addToken } from "@/test/people";
import { setupFirstAdmin, signIn } from "./account-service";
import { hashPassword } from "./password";
import { principalFromHeaders } from "./principal";
import type { Principal } from "./roles";
import { changeUserRoleAudited, createUserAudited } from "./user-service";

let t: TestDatabase;
let me: Principal;
let myId: string;
let adminSession: string;
const PASSWORD = "long enough 1";
const BASE = "http://127.0.0.1:3000";

type Handler = (request: Request, context?: { params?: Promise<Record<string, string>> }) => Promise<Response>;

/** Calls a route handler as Next would: the cookie (with Origin, as the dashboard sends it) or a token. */
async function call(handler: Handler, path: string, init: { method?: string; session?: string; token?: string; project?: string; body?: unknown; params?: Record<string, string> } = {}) {
  const headers: Record<string, string> = {};
  if (init.session) Object.assign(headers, { cookie: `hp_session=${init.session}`, origin: BASE });
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.project) headers["x-hookplane-project"] = init.project;
  if (init.body !== undefined || (init.session && init.method)) headers["content-type"] = "application/json";
  const request = new Request(`${BASE}${path}`, { method: init.method ?? "GET", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const res = await handler(request, { params: Promise.resolve(init.params ?? {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function sessionOf(email: string): Promise<string> {
  return (await signIn(t.db, { email, password: PASSWORD, address: `192.0.2.${Math.floor(Math.random() * 200) + 1}` })).sessionToken;
}

let passwordHash: string;
async function person(email: string, role: "admin" | "operator" | "viewer" | null, projectId = DEFAULT_PROJECT_ID) {
  return addPerson(t.db, { email, role, projectId, passwordHash });
}

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  passwordHash = await hashPassword(PASSWORD);
  const { user } = await setupFirstAdmin(t.db, { email: "first@example.com", password: PASSWORD });
  myId = user.id;
  me = { kind: "user", id: "session", label: user.email, role: "admin", userId: user.id, projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: true };
  adminSession = await sessionOf("first@example.com");
});
afterAll(() => t.drop());

describe("setup", () => {
  test("the first person is instance admin and admin of the default project; the setup token belongs to it", async () => {
    expect(await t.execute("select instance_admin from users where id = $1", [myId]).then((r) => r.rows)).toEqual([{ instance_admin: true }]);
    expect(await t.execute("select project_id, role from project_members where user_id = $1", [myId]).then((r) => r.rows)).toEqual([
      { project_id: DEFAULT_PROJECT_ID, role: "admin" },
    ]);
    expect(await t.execute("select project_id, role from api_tokens where user_id = $1 and name = 'setup'", [myId]).then((r) => r.rows)).toEqual([
      { project_id: DEFAULT_PROJECT_ID, role: "admin" },
    ]);
  });

  test("a person in no project is told so after their password checked out; an instance admin with none is let in", async () => {
    await person("nobody@example.com", null);
    await expect(signIn(t.db, { email: "nobody@example.com", password: PASSWORD, address: "192.0.2.50" })).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/no access yet/) });
    await expect(signIn(t.db, { email: "nobody@example.com", password: "wrong password", address: "192.0.2.51" })).rejects.toMatchObject({ status: 401 });
    await addPerson(t.db, { email: "root2@example.com", instanceAdmin: true, passwordHash });
    expect((await signIn(t.db, { email: "root2@example.com", password: PASSWORD, address: "192.0.2.52" })).user).toMatchObject({ instanceAdmin: true, projects: [] });
  });
});

describe("projects", () => {
  test("instance admins create, rename and delete projects; the slug is checked; the default project stays", async () => {
    const bad = await call(projectsRoute.POST, "/api/v1/projects", { method: "POST", session: adminSession, body: { slug: "Team A" } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.message).toMatch(/^slug: a project slug is 2 to 40 lowercase letters, digits and dashes/);
    const made = await call(projectsRoute.POST, "/api/v1/projects", { method: "POST", session: adminSession, body: { slug: "scratch", name: "Scratch" } });
    expect(made).toMatchObject({ status: 201, body: { slug: "scratch", name: "Scratch", isDefault: false } });
    expect((await call(projectsRoute.POST, "/api/v1/projects", { method: "POST", session: adminSession, body: { slug: "scratch" } })).status).toBe(409);
    const renamed = await call(projectRoute.PATCH, "/api/v1/projects/scratch", { method: "PATCH", session: adminSession, body: { name: "Scratch pad" }, params: { slug: "scratch" } });
    expect(renamed).toMatchObject({ status: 200, body: { slug: "scratch", name: "Scratch pad" } });
    const token = await addToken(t.db, { role: "admin", projectId: made.body.id });
    expect((await call(projectRoute.DELETE, "/api/v1/projects/default", { method: "DELETE", session: adminSession, params: { slug: "default" } })).status).toBe(409);
    expect((await call(projectRoute.DELETE, "/api/v1/projects/scratch", { method: "DELETE", session: adminSession, params: { slug: "scratch" } })).status).toBe(204);
    // Its tokens went with it.
    expect(await principalFromHeaders(t.db, new Headers({ authorization: `Bearer ${token.token}` }))).toBeUndefined();
    expect(await t.execute("select action, project_id from audit_log where entity_type = 'project' order by id").then((r) => r.rows)).toEqual([
      { action: "project.create", project_id: null },
      { action: "project.rename", project_id: null },
      { action: "project.delete", project_id: null },
    ]);
  });

  test("everyone lists the projects they belong to; a token its own", async () => {
    const b = await addProject(t.db, { slug: "list-b" });
    await person("lister@example.com", "viewer", b.id);
    const session = await sessionOf("lister@example.com");
    const mine = await call(projectsRoute.GET, "/api/v1/projects", { session });
    expect(mine.body.items.map((p: { slug: string; role: string }) => [p.slug, p.role])).toEqual([["list-b", "viewer"]]);
    const all = await call(projectsRoute.GET, "/api/v1/projects", { session: adminSession });
    expect(all.body.items.map((p: { slug: string }) => p.slug)).toEqual(expect.arrayContaining(["default", "list-b"]));
    const { token } = await addToken(t.db, { role: "viewer", projectId: b.id });
    expect((await call(projectsRoute.GET, "/api/v1/projects", { token })).body.items.map((p: { slug: string }) => p.slug)).toEqual(["list-b"]);
    expect((await call(projectRoute.GET, "/api/v1/projects/list-b", { session, params: { slug: "list-b" } })).body).toMatchObject({ slug: "list-b", role: "viewer" });
    expect((await call(projectRoute.GET, "/api/v1/projects/default", { session, params: { slug: "default" } })).status).toBe(404);
  });
});

describe("a project admin of B and project A", () => {
  let a: { id: string };
  let b: { id: string };
  let bAdminSession: string;
  let aMemberId: string;

  beforeAll(async () => {
    a = await addProject(t.db, { slug: "proj-a" });
    b = await addProject(t.db, { slug: "proj-b" });
    await person("b-admin@example.com", "admin", b.id);
    aMemberId = (await person("a-member@example.com", "operator", a.id)).id;
    bAdminSession = await sessionOf("b-admin@example.com");
  });

  test("cannot list or change A's members (404, as if A did not exist), nor create projects (403)", async () => {
    const params = { slug: "proj-a" };
    expect((await call(membersRoute.GET, "/api/v1/projects/proj-a/members", { session: bAdminSession, params })).status).toBe(404);
    expect((await call(membersRoute.GET, "/api/v1/projects/no-such/members", { session: bAdminSession, params: { slug: "no-such" } })).status).toBe(404);
    expect((await call(membersRoute.POST, "/api/v1/projects/proj-a/members", { method: "POST", session: bAdminSession, params, body: { email: "b-admin@example.com", role: "admin" } })).status).toBe(404);
    const member = { ...params, userId: aMemberId };
    expect((await call(memberRoute.PATCH, "/x", { method: "PATCH", session: bAdminSession, params: member, body: { role: "viewer" } })).status).toBe(404);
    expect((await call(memberRoute.DELETE, "/x", { method: "DELETE", session: bAdminSession, params: member })).status).toBe(404);
    // Naming A in the header is the same 404 on any project route.
    expect((await call(tokensRoute.GET, "/api/v1/tokens", { session: bAdminSession, project: "proj-a" })).status).toBe(404);
    expect((await call(projectsRoute.POST, "/api/v1/projects", { method: "POST", session: bAdminSession, body: { slug: "mine" } })).status).toBe(403);
    expect((await call(usersRoute.GET, "/api/v1/users", { session: bAdminSession })).status).toBe(403);
    expect(await t.execute("select role from project_members where user_id = $1", [aMemberId]).then((r) => r.rows)).toEqual([{ role: "operator" }]);
  });

  test("manages B's members: adds an account by email or creates one, changes roles, removes; each audited in B", async () => {
    const params = { slug: "proj-b" };
    const unknown = await call(membersRoute.POST, "/x", { method: "POST", session: bAdminSession, params, body: { email: "new@example.com", role: "viewer" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.issues[0]).toEqual({ path: "password", message: "new@example.com has no account: give a password to create one" });
    const created = await call(membersRoute.POST, "/x", { method: "POST", session: bAdminSession, params, body: { email: "new@example.com", role: "viewer", password: PASSWORD } });
    expect(created).toMatchObject({ status: 201, body: { email: "new@example.com", role: "viewer" } });
    const existing = await call(membersRoute.POST, "/x", { method: "POST", session: bAdminSession, params, body: { email: "a-member@example.com", role: "operator" } });
    expect(existing.status).toBe(201);
    expect((await call(membersRoute.POST, "/x", { method: "POST", session: bAdminSession, params, body: { email: "a-member@example.com", role: "admin" } })).status).toBe(409);
    const listed = await call(membersRoute.GET, "/x", { session: bAdminSession, params });
    expect(listed.body.items.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ["a-member@example.com", "operator"],
      ["b-admin@example.com", "admin"],
      ["new@example.com", "viewer"],
    ]);
    const changed = await call(memberRoute.PATCH, "/x", { method: "PATCH", session: bAdminSession, params: { ...params, userId: created.body.userId }, body: { role: "operator" } });
    expect(changed).toMatchObject({ status: 200, body: { role: "operator" } });
    expect((await call(memberRoute.DELETE, "/x", { method: "DELETE", session: bAdminSession, params: { ...params, userId: aMemberId } })).status).toBe(204);
    // Still in A.
    expect(await t.execute("select project_id from project_members where user_id = $1", [aMemberId]).then((r) => r.rows)).toEqual([{ project_id: a.id }]);
    expect(await t.execute("select action, project_id from audit_log where entity_type = 'user' and action like 'member.%' and project_id = $1 order by id", [b.id]).then((r) => r.rows)).toEqual([
      { action: "member.add", project_id: b.id },
      { action: "member.add", project_id: b.id },
      { action: "member.role", project_id: b.id },
      { action: "member.remove", project_id: b.id },
    ]);
  });

  test("a token of B naming A, by header or by the path prefix, is a 403; its own project works", async () => {
    const { token } = await addToken(t.db, { role: "admin", projectId: b.id });
    const other = await call(tokensRoute.GET, "/api/v1/tokens", { token, project: "proj-a" });
    expect(other.status).toBe(403);
    expect(other.body.error.message).toBe('This token belongs to project "proj-b"; it cannot act in "proj-a"');
    expect((await call(membersRoute.GET, "/api/v1/projects/proj-a/members", { token, params: { slug: "proj-a" } })).status).toBe(403);
    expect((await call(tokensRoute.GET, "/api/v1/tokens", { token, project: "proj-b" })).status).toBe(200);
    expect((await call(membersRoute.GET, "/api/v1/projects/proj-b/members", { token, params: { slug: "proj-b" } })).status).toBe(200);
  });

  test("tokens are made in the caller's project with at most their role, and listed and revoked there only", async () => {
    const made = await call(tokensRoute.POST, "/api/v1/tokens", { method: "POST", session: bAdminSession, project: "proj-b", body: { name: "ci", role: "operator" } });
    expect(made.status).toBe(201);
    expect(await t.execute("select project_id from api_tokens where id = $1", [made.body.id]).then((r) => r.rows)).toEqual([{ project_id: b.id }]);
    const inB = await call(tokensRoute.GET, "/api/v1/tokens", { session: bAdminSession, project: "proj-b" });
    expect(inB.body.items.map((x: { id: string }) => x.id)).toContain(made.body.id);
    const inDefault = await call(tokensRoute.GET, "/api/v1/tokens", { session: adminSession, project: "default" });
    expect(inDefault.body.items.map((x: { id: string }) => x.id)).not.toContain(made.body.id);
    // Tokens are an admin's business: an operator's token cannot make one.
    const { token: opToken } = await addToken(t.db, { role: "operator", projectId: b.id });
    expect((await call(tokensRoute.POST, "/api/v1/tokens", { method: "POST", token: opToken, body: { name: "x", role: "viewer" } })).status).toBe(403);
  });

  test("a demoted member loses the role at once: their API session ends, their token acts with the lower role", async () => {
    const dee = await person("dee@example.com", "admin", b.id);
    const session = await sessionOf("dee@example.com");
    const { token } = await addToken(t.db, { role: "admin", projectId: b.id, userId: dee.id });
    expect((await call(tokensRoute.GET, "/api/v1/tokens", { token })).status).toBe(200);
    expect((await call(membersRoute.GET, "/x", { session, params: { slug: "proj-b" } })).status).toBe(200);

    const demoted = await call(memberRoute.PATCH, "/x", { method: "PATCH", session: bAdminSession, params: { slug: "proj-b", userId: dee.id }, body: { role: "viewer" } });
    expect(demoted.status).toBe(200);
    // The session ended; signed in again, Dee is a viewer: 403.
    expect((await call(membersRoute.GET, "/x", { session, params: { slug: "proj-b" } })).status).toBe(401);
    const again = await sessionOf("dee@example.com");
    expect((await call(membersRoute.GET, "/x", { session: again, params: { slug: "proj-b" } })).status).toBe(403);
    // The admin token acts as a viewer now.
    expect((await call(tokensRoute.GET, "/api/v1/tokens", { token })).status).toBe(403);
    expect(await principalFromHeaders(t.db, new Headers({ authorization: `Bearer ${token}` }))).toMatchObject({ role: "viewer", projectSlug: "proj-b" });
    // Out of the project: the token acts no more.
    await call(memberRoute.DELETE, "/x", { method: "DELETE", session: bAdminSession, params: { slug: "proj-b", userId: dee.id } });
    expect(await principalFromHeaders(t.db, new Headers({ authorization: `Bearer ${token}` }))).toBeUndefined();
  });

  test("a project admin cannot take away the project's last admin; an instance admin can", async () => {
    const c = await addProject(t.db, { slug: "proj-c" });
    const solo = await person("solo@example.com", "admin", c.id);
    const soloSession = await sessionOf("solo@example.com");
    const own = await call(memberRoute.PATCH, "/x", { method: "PATCH", session: soloSession, params: { slug: "proj-c", userId: solo.id }, body: { role: "viewer" } });
    expect(own).toMatchObject({ status: 409, body: { error: { message: "You are this project's last admin: make another member admin before changing your own role." } } });
    expect((await call(memberRoute.DELETE, "/x", { method: "DELETE", session: soloSession, params: { slug: "proj-c", userId: solo.id } })).status).toBe(409);
    const byInstance = await call(memberRoute.DELETE, "/x", { method: "DELETE", session: adminSession, params: { slug: "proj-c", userId: solo.id } });
    expect(byInstance.status).toBe(204);
  });
});

describe("accounts (instance admins)", () => {
  test("the last instance admin stays one and cannot be removed; once another exists, they can", async () => {
    const other = await t.execute("select id from users where email = 'root2@example.com'").then((r) => (r.rows[0] as { id: string }).id);
    await call(userRoute.DELETE, "/x", { method: "DELETE", session: adminSession, params: { id: other } });
    const self = await call(userRoute.PATCH, "/x", { method: "PATCH", session: adminSession, params: { id: myId }, body: { instanceAdmin: false } });
    expect(self).toMatchObject({ status: 409, body: { error: { message: "You are the last instance admin: make another person instance admin first." } } });
    expect((await call(userRoute.DELETE, "/x", { method: "DELETE", session: adminSession, params: { id: myId } })).status).toBe(409);

    const made = await call(usersRoute.POST, "/api/v1/users", { method: "POST", session: adminSession, body: { email: "second@example.com", password: PASSWORD, instanceAdmin: true } });
    expect(made).toMatchObject({ status: 201, body: { email: "second@example.com", instanceAdmin: true } });
    const unmade = await call(userRoute.PATCH, "/x", { method: "PATCH", session: adminSession, params: { id: myId }, body: { instanceAdmin: false } });
    expect(unmade).toMatchObject({ status: 200, body: { instanceAdmin: false } });
    // Unmaking is a demotion: the session that carried it ended.
    expect((await call(usersRoute.GET, "/api/v1/users", { session: adminSession })).status).toBe(401);
    expect(await t.execute("select project_id, action from audit_log where action like 'user.%' and entity_id = $1 order by id", [myId]).then((r) => r.rows)).toEqual([
      { project_id: null, action: "user.instance_admin" },
    ]);
  });

  test("the older one-step calls still work, in the principal's project", async () => {
    const other = await createUserAudited(t.db, me, { email: "third@example.com", password: PASSWORD, role: "viewer" });
    expect(await changeUserRoleAudited(t.db, me, { id: other.id, role: "operator" })).toMatchObject({ role: "operator" });
    await expect(changeUserRoleAudited(t.db, me, { id: "00000000-0000-4000-8000-000000000000", role: "viewer" })).rejects.toMatchObject({ status: 404 });
  });
});
