/**
 * Single sign-on against a real OpenID provider (oidc-provider on a local port, test/oidc-provider.ts):
 * the start and callback routes, the providers API, the sessions they open and how those end, on
 * one HTTP server built like server.ts (the web edge, the API, the WebSocket endpoint and hub).
 * The dashboard is a stand-in page that resolves the session as the real layout does
 * (principalFromSessionToken), since Next is not built for the database tests.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import WebSocket from "ws";
import { decodeJwt, decodeProtectedHeader, exportSPKI, SignJWT, type CryptoKey, type JWTPayload } from "jose";
import * as providersRoute from "@/app/api/v1/auth/providers/route";
import * as providerRoute from "@/app/api/v1/auth/providers/[id]/route";
import * as authSettingsRoute from "@/app/api/v1/auth/settings/route";
import * as runsRoute from "@/app/api/v1/runs/route";
import * as setupRoute from "@/app/api/v1/setup/route";
import * as userRoute from "@/app/api/v1/users/[id]/route";
import * as usersRoute from "@/app/api/v1/users/route";
import * as projectsRoute from "@/app/api/v1/projects/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { installDatabase, type DbHandle } from "@/db/client";
import { routeRequestListener, type RouteEntry } from "@/lib/platform/api/route-server";
import { AppError } from "@/lib/platform/api/app-error";
import { issueApiToken, signIn } from "@/lib/platform/auth/account-service";
import { principalFromSessionToken, readCookie, SESSION_COOKIE } from "@/lib/platform/auth/principal";
import type { Principal } from "@/lib/platform/auth/roles";
import { addMemberAudited, changeUserRoleAudited } from "@/lib/platform/auth/user-service";
import { StreamHub } from "@/lib/platform/stream/hub";
import { attachWebSocketEndpoint } from "@/lib/platform/stream/ws-endpoint";
import { guardWebRequest } from "@/lib/platform/security/web-edge";
import { logger } from "@/lib/platform/logger";
import { forgetSecretBox, getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { setEnv } from "@/test/config-env";
import { browse, CookieJar, newSigningKey, startTestIdentityProvider, throughProviderLogin, type TestIdentityProvider } from "@/test/oidc-provider";
import { clientSecretName } from "./oidc-client";
import { FLOW_COOKIE, openFlow, sealFlow } from "./sign-in-flow";
import { signInFailureMessage } from "./sign-in-messages";
import { handleSsoCallback, handleSsoStart } from "./sso-routes";

vi.mock("server-only", () => ({}));

const ADMIN = { email: "admin@example.com", password: "admin password 1" };
const CLIENT_SECRET = `client-secret-${randomBytes(12).toString("hex")}`;
const MAPPINGS = [
  { group: "hp-admins", role: "admin" },
  { group: "hp-eng", role: "operator" },
];

const ROUTES: RouteEntry[] = [
  { method: "POST", path: "/api/v1/setup", handler: setupRoute.POST },
  { method: "GET", path: "/api/v1/users", handler: usersRoute.GET },
  { method: "POST", path: "/api/v1/users", handler: usersRoute.POST },
  { method: "DELETE", path: "/api/v1/users/:id", handler: userRoute.DELETE },
  { method: "PATCH", path: "/api/v1/users/:id", handler: userRoute.PATCH },
  { method: "GET", path: "/api/v1/tokens", handler: tokensRoute.GET },
  { method: "POST", path: "/api/v1/projects", handler: projectsRoute.POST },
  { method: "GET", path: "/api/v1/runs", handler: runsRoute.GET },
  { method: "GET", path: "/api/v1/auth/providers", handler: providersRoute.GET },
  { method: "POST", path: "/api/v1/auth/providers", handler: providersRoute.POST },
  { method: "PATCH", path: "/api/v1/auth/providers/:id", handler: providerRoute.PATCH },
  { method: "DELETE", path: "/api/v1/auth/providers/:id", handler: providerRoute.DELETE },
  { method: "GET", path: "/api/v1/auth/settings", handler: authSettingsRoute.GET },
  { method: "PUT", path: "/api/v1/auth/settings", handler: authSettingsRoute.PUT },
  { method: "GET", path: "/auth/oidc/start", handler: handleSsoStart },
  { method: "GET", path: "/auth/oidc/callback", handler: handleSsoCallback },
];

interface WebProcess {
  base: string;
  ws: string;
  close(): Promise<void>;
}

/** server.ts in small: the edge, the routes, a dashboard page, the stream. */
async function startWebProcess(handle: DbHandle): Promise<WebProcess> {
  const hub = new StreamHub(handle);
  await hub.start();
  const routes = routeRequestListener(ROUTES);
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (!guardWebRequest(req, res, { secure: false, dev: false, trustProxy: false })) return;
    if (req.url?.startsWith("/api/") || req.url?.startsWith("/auth/")) return routes(req, res);
    // The dashboard: its layout sends a visitor without a valid session to sign-in.
    const principal = await principalFromSessionToken(handle.db, readCookie(req.headers.cookie, SESSION_COOKIE));
    if (!principal) return void res.writeHead(307, { location: "/sign-in" }).end();
    res.writeHead(200, { "content-type": "text/plain" }).end(`dashboard for ${principal.label} as ${principal.role}`);
  });
  const wss = attachWebSocketEndpoint(server, handle, hub);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    ws: `ws://127.0.0.1:${port}/api/ws`,
    async close() {
      await hub.stop();
      wss.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A socket that notes how it closed. */
async function openSocket(cookie: string): Promise<{ socket: WebSocket; closed: () => number | undefined }> {
  const socket = new WebSocket(web.ws, { headers: { cookie: `${SESSION_COOKIE}=${cookie}`, origin: web.base } });
  let code: number | undefined;
  socket.on("close", (c) => (code = c));
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("unexpected-response", (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
  });
  return { socket, closed: () => code };
}

let t: TestDatabase;
let web: WebProcess;
let idp: TestIdentityProvider;
let adminToken: string;
/** Instance-wide changes (providers, accounts, password sign-in) need a person signed in: tokens never reach them. */
let adminSession: string;
/** The first admin, as the service functions see them (instance admin, in the default project). */
const ADMIN_PRINCIPAL: Principal = { kind: "user", id: "x", label: ADMIN.email, role: "admin", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: true };
let restoreEnv: () => void;
let providerId: string;

const api = (path: string, init: { method?: string; token?: string; cookie?: string; body?: unknown } = {}) =>
  fetch(`${web.base}${path}`, {
    method: init.method ?? "GET",
    headers: {
      ...(init.token && { authorization: `Bearer ${init.token}` }),
      ...(init.cookie && { cookie: `${SESSION_COOKIE}=${init.cookie}`, origin: web.base }),
      // Cookie writes must be JSON from our origin, as the dashboard sends them (lib/platform/api/route.ts).
      ...((init.body !== undefined || (init.cookie && init.method)) && { "content-type": "application/json" }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

const startUrl = (id = providerId, next?: string) => `${web.base}/auth/oidc/start?provider=${id}${next ? `&next=${encodeURIComponent(next)}` : ""}`;

/** A whole sign-in in a fresh browser: the callback's answer and the session cookie it set, if any. */
async function signInAs(login: string, id = providerId) {
  const jar = new CookieJar();
  const callback = await throughProviderLogin(jar, startUrl(id), login);
  const answer = await browse(jar, callback);
  return { jar, callback, status: answer.status, location: answer.headers.get("location"), setCookies: answer.headers.getSetCookie(), session: jar.get(web.base, SESSION_COOKIE) };
}

async function rows<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await t.execute(sql, params)).rows as T[];
}

/** A person with their role in the default project (null: not a member). */
const userRow = (email: string) =>
  rows<{ id: string; email: string; role: string | null; password_hash: string | null; disabled: boolean }>(
    "select u.id, u.email, m.role, u.password_hash, u.disabled from users u left join project_members m on m.user_id = u.id and m.project_id = $2 where u.email = $1",
    [email, DEFAULT_PROJECT_ID],
  ).then((r) => r[0]);

const sessionCount = async () => Number((await rows<{ n: number }>("select count(*)::int as n from sessions"))[0].n);

async function createProvider(body: Record<string, unknown>) {
  const res = await api("/api/v1/auth/providers", { method: "POST", cookie: adminSession, body });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string } & Record<string, unknown>;
}

beforeAll(async () => {
  restoreEnv = setEnv({ HOOKPLANE_SECRET_KEY: randomBytes(32).toString("base64"), HOOKPLANE_ALLOW_PRIVATE_HOSTS: "127.0.0.1", HOOKPLANE_PASSWORD_BREAK_GLASS: undefined });
  forgetSecretBox();
  t = await createTestDatabase();
  installDatabase(t);
  web = await startWebProcess(t);
  setEnv({ HOOKPLANE_PUBLIC_URL: web.base });
  idp = await startTestIdentityProvider({ redirectUris: [`${web.base}/auth/oidc/callback`], clientSecret: CLIENT_SECRET });
  const setup = await api("/api/v1/setup", { method: "POST", body: ADMIN });
  adminToken = ((await setup.json()) as { token: string }).token;
  adminSession = (await signIn(t.db, { ...ADMIN, address: "192.0.2.9" })).sessionToken;
  providerId = (
    await createProvider({
      name: "Test IdP",
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: CLIENT_SECRET,
      scopes: ["openid", "email", "groups"],
      roleMappings: MAPPINGS,
      defaultRole: "viewer",
    })
  ).id;
});

afterAll(async () => {
  await idp?.close();
  await web?.close();
  await t?.drop();
  restoreEnv?.();
  forgetSecretBox();
});

describe("signing in through the provider", () => {
  test("the first sign-in creates the user with the mapped role, links the identity, audits it and opens a session", async () => {
    idp.accounts.set("alice-sub", { email: "Alice@Example.com", emailVerified: true, groups: ["hp-eng", "unrelated"] });
    const jar = new CookieJar();
    const callback = await throughProviderLogin(jar, startUrl(providerId, "/runs?status=running"), "alice-sub");
    // The start link set the flow cookie on /auth/oidc only, httpOnly and SameSite=Lax, for ten minutes.
    expect(jar.get(web.base, FLOW_COOKIE)).toBeDefined();
    const answer = await browse(jar, callback);
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/runs?status=running");
    const cookies = answer.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith(`${FLOW_COOKIE}=;`))).toMatch(/Path=\/auth\/oidc; Max-Age=0; HttpOnly; SameSite=Lax/);
    // The same cookie a password sign-in sets.
    expect(cookies.find((c) => c.startsWith(`${SESSION_COOKIE}=`))).toMatch(/^hp_session=[\w-]{43}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax$/);
    const session = jar.get(web.base, SESSION_COOKIE)!;

    const user = await userRow("alice@example.com");
    expect(user).toEqual({ id: expect.any(String), email: "alice@example.com", role: "operator", password_hash: null, disabled: false });
    expect(await rows("select user_id, issuer, subject, email from user_identities where user_id = $1", [user.id])).toEqual([
      { user_id: user.id, issuer: idp.issuer, subject: "alice-sub", email: "alice@example.com" },
    ]);
    expect(await rows("select provider_id from sessions where user_id = $1", [user.id])).toEqual([{ provider_id: providerId }]);
    expect(await rows("select project_id, actor, action, entity_id, before, after from audit_log where entity_id = $1 order by id", [user.id])).toEqual([
      {
        project_id: null,
        actor: "sso:Test IdP",
        action: "user.create",
        entity_id: user.id,
        before: null,
        after: { email: "alice@example.com", provider: "Test IdP", issuer: idp.issuer, subject: "alice-sub", groups: ["hp-eng", "unrelated"] },
      },
      {
        project_id: DEFAULT_PROJECT_ID,
        actor: "sso:Test IdP",
        action: "member.add",
        entity_id: user.id,
        before: null,
        after: { email: "alice@example.com", role: "operator", groups: ["hp-eng", "unrelated"] },
      },
    ]);

    // The session works like a password's: the dashboard, the API, the stream, with the role's limits.
    const page = await fetch(`${web.base}/agents`, { headers: { cookie: `${SESSION_COOKIE}=${session}` }, redirect: "manual" });
    expect(await page.text()).toBe("dashboard for alice@example.com as operator");
    expect((await api("/api/v1/runs", { cookie: session })).status).toBe(200);
    expect((await api("/api/v1/tokens", { cookie: session })).status).toBe(403);
    (await openSocket(session)).socket.close();
  });

  test("a second sign-in finds the same user by issuer and sub (not by email) and a groups change moves the role, audited", async () => {
    const alice = await userRow("alice@example.com");
    // The provider now sends another email and the admins' group.
    idp.accounts.set("alice-sub", { email: "alice.new@example.com", emailVerified: true, groups: ["hp-admins"] });
    const first = await signInAs("alice-sub");
    expect(first.location).toBe("/");
    expect(await userRow("alice@example.com")).toEqual({ ...alice, role: "admin" });
    expect(await userRow("alice.new@example.com")).toBeUndefined();
    expect(await rows("select email from user_identities where user_id = $1", [alice.id])).toEqual([{ email: "alice.new@example.com" }]);
    // The groups hooks' group scopes read are the ones of this sign-in, not the first.
    expect(await rows("select sso_groups from users where id = $1", [alice.id])).toEqual([{ sso_groups: ["hp-admins"] }]);
    expect(await rows("select actor, before, after from audit_log where action = 'member.role' and entity_id = $1", [alice.id])).toEqual([
      { actor: "sso:Test IdP", before: { email: "alice@example.com", role: "operator" }, after: { email: "alice@example.com", role: "admin", groups: ["hp-admins"] } },
    ]);
    // A promotion leaves the other sessions alone.
    expect((await rows("select 1 from sessions where user_id = $1", [alice.id])).length).toBe(2);
    expect((await api("/api/v1/tokens", { cookie: first.session })).status).toBe(200);
  });

  test("losing the group on a later sign-in demotes at once everywhere: old sessions end, their sockets close, their pages sign out", async () => {
    const alice = await userRow("alice@example.com");
    const before = await signInAs("alice-sub");
    const live = await openSocket(before.session!);
    expect((await api("/api/v1/tokens", { cookie: before.session })).status).toBe(200);

    idp.accounts.set("alice-sub", { email: "alice@example.com", emailVerified: true, groups: ["sales"] });
    const after = await signInAs("alice-sub");
    expect(after.location).toBe("/");
    expect((await userRow("alice@example.com")).role).toBe("viewer");

    await expect.poll(live.closed, { timeout: 3000 }).toBe(4401);
    expect((await api("/api/v1/tokens", { cookie: before.session })).status).toBe(401);
    const page = await fetch(`${web.base}/agents`, { headers: { cookie: `${SESSION_COOKIE}=${before.session}` }, redirect: "manual" });
    expect(page.headers.get("location")).toBe("/sign-in");
    // Only the new session is left, as a viewer.
    expect(await rows("select provider_id from sessions where user_id = $1", [alice.id])).toEqual([{ provider_id: providerId }]);
    expect((await api("/api/v1/runs", { cookie: after.session })).status).toBe(200);
    expect((await api("/api/v1/tokens", { cookie: after.session })).status).toBe(403);
    const roleRows = await rows<{ after: { role: string } }>("select after from audit_log where action = 'member.role' and entity_id = $1 order by id", [alice.id]);
    expect(roleRows.map((r) => r.after)).toEqual([
      { email: "alice@example.com", role: "admin", groups: ["hp-admins"] },
      { email: "alice@example.com", role: "viewer", groups: ["sales"] },
    ]);
  });

  test("an admin removing or demoting a single sign-on user ends their access at once on the API, the dashboard and open sockets", async () => {
    idp.accounts.set("bob-sub", { email: "bob@example.com", emailVerified: true, groups: ["hp-eng"] });
    const bob = await signInAs("bob-sub");
    const bobId = (await userRow("bob@example.com")).id;
    const live = await openSocket(bob.session!);
    await changeUserRoleAudited(t.db, ADMIN_PRINCIPAL, { id: bobId, role: "viewer" });
    await expect.poll(live.closed, { timeout: 3000 }).toBe(4401);
    expect((await api("/api/v1/runs", { cookie: bob.session })).status).toBe(401);
    expect((await fetch(`${web.base}/agents`, { headers: { cookie: `${SESSION_COOKIE}=${bob.session}` }, redirect: "manual" })).status).toBe(307);
    // With mappings, the provider's groups decide again at the next sign-in (docs/security.md).
    const again = await signInAs("bob-sub");
    expect((await userRow("bob@example.com")).role).toBe("operator");

    const live2 = await openSocket(again.session!);
    const removed = await api(`/api/v1/users/${bobId}`, { method: "DELETE", cookie: adminSession });
    expect(removed.status).toBe(204);
    await expect.poll(live2.closed, { timeout: 3000 }).toBe(4401);
    expect((await api("/api/v1/runs", { cookie: again.session })).status).toBe(401);
    expect((await fetch(`${web.base}/agents`, { headers: { cookie: `${SESSION_COOKIE}=${again.session}` }, redirect: "manual" })).status).toBe(307);
    // A removed user cannot sign in through the provider either.
    const sessions = await sessionCount();
    const refused = await signInAs("bob-sub");
    expect(refused.location).toBe(`/sign-in?error=account_removed&provider=${providerId}`);
    expect(refused.session).toBeUndefined();
    expect(await sessionCount()).toBe(sessions);
  });

  test("a provider whose default is no access creates the user without a role and opens no session until an admin assigns one", async () => {
    const strict = await createProvider({ name: "Strict IdP", issuer: idp.issuer, clientId: idp.clientId, clientSecret: CLIENT_SECRET, scopes: ["email", "groups"], roleMappings: [], defaultRole: null });
    idp.accounts.set("carol-sub", { email: "carol@example.com", emailVerified: true, groups: [] });
    const first = await signInAs("carol-sub", strict.id);
    expect(first.location).toBe(`/sign-in?error=no_role&provider=${strict.id}`);
    expect(first.session).toBeUndefined();
    const carol = await userRow("carol@example.com");
    expect(carol).toEqual({ id: expect.any(String), email: "carol@example.com", role: null, password_hash: null, disabled: false });
    expect(await rows("select count(*)::int as n from sessions where user_id = $1", [carol.id])).toEqual([{ n: 0 }]);

    await addMemberAudited(t.db, ADMIN_PRINCIPAL, { projectId: DEFAULT_PROJECT_ID }, { email: carol.email, role: "operator" });
    const second = await signInAs("carol-sub", strict.id);
    expect(second.location).toBe("/");
    // No mappings: the admin's role stays.
    expect((await userRow("carol@example.com")).role).toBe("operator");
  });

  test("an email an existing account has links only when the admin allowed it and the provider verified the email", async () => {
    const local = await api("/api/v1/users", { method: "POST", cookie: adminSession, body: { email: "dave@example.com", password: "long password 1", role: "viewer" } });
    const daveId = ((await local.json()) as { id: string }).id;
    idp.accounts.set("dave-sub", { email: "dave@example.com", emailVerified: true, groups: ["hp-eng"] });
    expect((await signInAs("dave-sub")).location).toBe(`/sign-in?error=link_refused&provider=${providerId}`);

    await api(`/api/v1/auth/providers/${providerId}`, { method: "PATCH", cookie: adminSession, body: { linkByEmail: true } });
    idp.accounts.set("dave-sub", { email: "dave@example.com", emailVerified: false, groups: ["hp-eng"] });
    expect((await signInAs("dave-sub")).location).toBe(`/sign-in?error=link_refused&provider=${providerId}`);
    expect(await rows("select count(*)::int as n from user_identities where user_id = $1", [daveId])).toEqual([{ n: 0 }]);

    idp.accounts.set("dave-sub", { email: "dave@example.com", emailVerified: true, groups: ["hp-eng"] });
    const linked = await signInAs("dave-sub");
    expect(linked.location).toBe("/");
    expect(await rows("select subject from user_identities where user_id = $1", [daveId])).toEqual([{ subject: "dave-sub" }]);
    expect(await rows("select actor, action, after from audit_log where entity_id = $1 and actor like 'sso:%' order by id", [daveId])).toEqual([
      { actor: "sso:Test IdP", action: "user.identity_link", after: { email: "dave@example.com", provider: "Test IdP", issuer: idp.issuer, subject: "dave-sub" } },
      { actor: "sso:Test IdP", action: "member.role", after: { email: "dave@example.com", role: "operator", groups: ["hp-eng"] } },
    ]);
    // The password still works alongside.
    expect((await signIn(t.db, { email: "dave@example.com", password: "long password 1", address: "192.0.2.1" })).user.projects).toEqual([{ slug: "default", role: "operator" }]);
    await api(`/api/v1/auth/providers/${providerId}`, { method: "PATCH", cookie: adminSession, body: { linkByEmail: false } });
  });

  test("a provider that does not create users refuses people without an account", async () => {
    await api(`/api/v1/auth/providers/${providerId}`, { method: "PATCH", cookie: adminSession, body: { createUsers: false } });
    idp.accounts.set("erin-sub", { email: "erin@example.com", emailVerified: true, groups: ["hp-admins"] });
    const sessions = await sessionCount();
    expect((await signInAs("erin-sub")).location).toBe(`/sign-in?error=no_account&provider=${providerId}`);
    expect(await userRow("erin@example.com")).toBeUndefined();
    expect(await sessionCount()).toBe(sessions);
    await api(`/api/v1/auth/providers/${providerId}`, { method: "PATCH", cookie: adminSession, body: { createUsers: true } });
  });
});

describe("answers that are not the answer to this browser's sign-in", () => {
  test("a changed state, another browser, a forged flow cookie, a wrong nonce or verifier, and a replayed code open no session", async () => {
    idp.accounts.set("frank-sub", { email: "frank@example.com", emailVerified: true, groups: ["hp-eng"] });
    const sessions = await sessionCount();
    const refusal = async (jar: CookieJar, url: string) => {
      const answer = await browse(jar, url);
      expect(answer.status).toBe(303);
      expect(answer.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
      return answer.headers.get("location");
    };

    // The state changed on the way back.
    let jar = new CookieJar();
    let callback = new URL(await throughProviderLogin(jar, startUrl(), "frank-sub"));
    callback.searchParams.set("state", "forged-state");
    expect(await refusal(jar, callback.href)).toBe(`/sign-in?error=state_mismatch&provider=${providerId}`);

    // The callback opened in another browser (no flow cookie): login CSRF.
    jar = new CookieJar();
    const honest = await throughProviderLogin(jar, startUrl(), "frank-sub");
    expect(await refusal(new CookieJar(), honest)).toBe("/sign-in?error=flow_expired");

    // A flow cookie changed by one character does not open.
    const sealed = decodeURIComponent(jar.get(web.base, FLOW_COOKIE)!);
    const forged = new CookieJar();
    forged.take(web.base, new Response(null, { headers: { "set-cookie": `${FLOW_COOKIE}=${encodeURIComponent(sealed.slice(0, -2) + (sealed.at(-2) === "A" ? "B" : "A") + sealed.at(-1))}` } }));
    expect(await refusal(forged, honest)).toBe("/sign-in?error=flow_expired");

    // A flow with the right state but another nonce: the ID token's nonce does not match.
    const box = getSecretBox();
    const flow = openFlow(box, sealed)!;
    const wrongNonce = new CookieJar();
    wrongNonce.take(web.base, new Response(null, { headers: { "set-cookie": `${FLOW_COOKIE}=${encodeURIComponent(sealFlow(box, { ...flow, nonce: "another-nonce" }))}` } }));
    expect(await refusal(wrongNonce, honest)).toBe(`/sign-in?error=provider_error&provider=${providerId}`);

    // The provider redeems a code once: the honest answer, sent again, is refused too.
    expect(await refusal(jar, honest)).toBe(`/sign-in?error=provider_error&provider=${providerId}`);

    // Another verifier (PKCE): the provider refuses the code.
    jar = new CookieJar();
    callback = new URL(await throughProviderLogin(jar, startUrl(), "frank-sub"));
    const mine = openFlow(box, decodeURIComponent(jar.get(web.base, FLOW_COOKIE)!))!;
    const wrongVerifier = new CookieJar();
    wrongVerifier.take(web.base, new Response(null, { headers: { "set-cookie": `${FLOW_COOKIE}=${encodeURIComponent(sealFlow(box, { ...mine, codeVerifier: "v".repeat(43) }))}` } }));
    expect(await refusal(wrongVerifier, callback.href)).toBe(`/sign-in?error=provider_error&provider=${providerId}`);

    // An expired flow.
    const expired = new CookieJar();
    expired.take(web.base, new Response(null, { headers: { "set-cookie": `${FLOW_COOKIE}=${encodeURIComponent(sealFlow(box, { ...mine, expiresAt: Date.now() - 1 }))}` } }));
    expect(await refusal(expired, callback.href)).toBe("/sign-in?error=flow_expired");

    expect(await sessionCount()).toBe(sessions);
    expect(await userRow("frank@example.com")).toBeUndefined();
  });

  test("Cancel at the provider's login page ends on the sign-in page as declined", async () => {
    const jar = new CookieJar();
    const callback = await throughProviderLogin(jar, startUrl(), "frank-sub", { cancel: true });
    expect(new URL(callback).searchParams.get("error")).toBe("access_denied");
    const answer = await browse(jar, callback);
    expect(answer.headers.get("location")).toBe(`/sign-in?error=denied&provider=${providerId}`);
    expect(jar.get(web.base, SESSION_COOKIE)).toBeUndefined();
  });

  test("a provider that is down, before or during the sign-in, ends on the sign-in page as unavailable", async () => {
    // Nothing listens on the issuer's port.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = await createProvider({ name: "Down IdP", issuer: `http://127.0.0.1:${port}`, clientId: "x", clientSecret: "y" });
    const answer = await browse(new CookieJar(), startUrl(down.id));
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe(`/sign-in?error=provider_unavailable&provider=${down.id}`);

    // A second provider goes down between the login and the callback.
    const flaky = await startTestIdentityProvider({ redirectUris: [`${web.base}/auth/oidc/callback`], clientSecret: CLIENT_SECRET });
    flaky.accounts.set("gina-sub", { email: "gina@example.com", emailVerified: true, groups: [] });
    const flakyRow = await createProvider({ name: "Flaky IdP", issuer: flaky.issuer, clientId: flaky.clientId, clientSecret: CLIENT_SECRET });
    const jar = new CookieJar();
    const callback = await throughProviderLogin(jar, startUrl(flakyRow.id), "gina-sub");
    await flaky.close();
    expect((await browse(jar, callback)).headers.get("location")).toBe(`/sign-in?error=provider_unavailable&provider=${flakyRow.id}`);
    expect(await userRow("gina@example.com")).toBeUndefined();
    for (const id of [down.id, flakyRow.id]) expect((await api(`/api/v1/auth/providers/${id}`, { method: "DELETE", cookie: adminSession })).status).toBe(204);
  });

  test("a start link with no provider, an unknown one or a foreign next ends where it should", async () => {
    expect((await browse(new CookieJar(), `${web.base}/auth/oidc/start`)).headers.get("location")).toBe("/sign-in?error=provider_gone");
    expect((await browse(new CookieJar(), `${web.base}/auth/oidc/start?provider=00000000-0000-4000-8000-000000000000`)).headers.get("location")).toBe(
      "/sign-in?error=provider_gone",
    );
    idp.accounts.set("hank-sub", { email: "hank@example.com", emailVerified: true, groups: [] });
    const jar = new CookieJar();
    const callback = await throughProviderLogin(jar, startUrl(providerId, "//evil.example/steal"), "hank-sub");
    expect((await browse(jar, callback)).headers.get("location")).toBe("/");
  });

  test("a next that resolves to another origin (dot segments, encoded dots, slashes and backslashes, tabs, too long) ends on the dashboard's home; a path of ours is kept (issue 30)", async () => {
    idp.accounts.set("ivy-sub", { email: "ivy@example.com", emailVerified: true, groups: [] });
    const through = async (next: string) => {
      const jar = new CookieJar();
      const answer = await browse(jar, await throughProviderLogin(jar, startUrl(providerId, next), "ivy-sub"));
      expect(answer.status, next).toBe(303);
      expect(jar.get(web.base, SESSION_COOKIE), next).toBeDefined();
      return answer.headers.get("location");
    };
    const hostile = ["/..//evil.example/x", "/.//evil.example/x", "/%2e%2e//evil.example/x", "/.%2e/%2e%2e//evil", "/%2f/evil", "/%5c/evil", "/\\evil", "/%09/evil", "/\t/evil", "////evil", `/${"a".repeat(3000)}`];
    for (const next of hostile) expect(await through(next), next).toBe("/");
    expect(await through("/runs?status=finished#top")).toBe("/runs?status=finished#top");
    expect(await through("/device?code=ABCD-EFGH")).toBe("/device?code=ABCD-EFGH");

    // A flow sealed before the rule was tightened (its next taken as it came) is checked again at the callback.
    const jar = new CookieJar();
    const callback = await throughProviderLogin(jar, startUrl(), "ivy-sub");
    const box = getSecretBox();
    const flow = openFlow(box, decodeURIComponent(jar.get(web.base, FLOW_COOKIE)!))!;
    jar.take(web.base, new Response(null, { headers: { "set-cookie": `${FLOW_COOKIE}=${encodeURIComponent(sealFlow(box, { ...flow, next: "/..//evil.example/x" }))}` } }));
    expect((await browse(jar, callback)).headers.get("location")).toBe("/");
  });
});

describe("ID tokens the issuer did not sign (issue 30)", () => {
  /** What the token endpoint hands out instead: the provider's own token's claims, signed as `sign` says. */
  const resigned = (sign: (claims: JWTPayload) => Promise<string>) => async (idToken: string) => sign(decodeJwt(idToken));
  const rs256 = (key: CryptoKey, kid: string | undefined) => (claims: JWTPayload) => new SignJWT(claims).setProtectedHeader({ alg: "RS256", ...(kid && { kid }) }).sign(key);
  const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

  /** A sign-in whose token endpoint answers with `replace(idToken)`, and the JWKS fetches it caused. */
  async function signInWith(login: string, id: string, replace?: (idToken: string) => Promise<string>) {
    const fetchesBefore = idp.jwksFetches;
    idp.replaceIdToken = replace;
    try {
      const result = await signInAs(login, id);
      return { ...result, jwksFetches: idp.jwksFetches - fetchesBefore };
    } finally {
      idp.replaceIdToken = undefined;
    }
  }

  test("a token signed by another key (the issuer's kid, an unknown kid, no kid), HMAC'd with the public key or unsigned signs nobody in; the issuer's own, and a rotated key, do", async () => {
    // A provider row of its own: its key set starts empty here, so the fetches counted are this test's.
    const own = (await createProvider({ name: "Signing IdP", issuer: idp.issuer, clientId: idp.clientId, clientSecret: CLIENT_SECRET, roleMappings: MAPPINGS, defaultRole: "viewer" })).id;
    idp.accounts.set("trent-sub", { email: "trent@example.com", emailVerified: true, groups: [] });
    idp.accounts.set("mallory-sub", { email: "mallory@example.com", emailVerified: true, groups: [] });
    const warn = vi.spyOn(logger, "warn");
    try {
      // Through the stand-in proxy, re-signed by the issuer's own key: it signs in (so the proxy changes nothing by itself).
      const honest = await signInWith("trent-sub", own, resigned(rs256(idp.signingKey().privateKey, idp.signingKey().kid)));
      expect(honest).toMatchObject({ status: 303, location: "/" });
      expect(honest.session).toBeDefined();
      expect(honest.jwksFetches).toBe(1);

      const sessions = await sessionCount();
      const stranger = await newSigningKey();
      const publicPem = await exportSPKI(await crypto.subtle.importKey("jwk", idp.signingKey().publicJwk, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, true, ["verify"]));
      const forgeries: [string, (idToken: string) => Promise<string>, { reason: string; jwksFetches: number }][] = [
        ["another RSA key under the issuer's only kid", resigned(rs256(stranger.privateKey, idp.signingKey().kid)), { reason: "token_unverified", jwksFetches: 0 }],
        // An unknown kid could be a rotation: the key set is fetched again, once, then the token refused.
        ["another RSA key under a kid the issuer never published", resigned(rs256(stranger.privateKey, stranger.kid)), { reason: "token_unverified", jwksFetches: 1 }],
        ["another RSA key with no kid", resigned(rs256(stranger.privateKey, undefined)), { reason: "token_unverified", jwksFetches: 0 }],
        [
          "HS256 keyed with the issuer's public key (which the provider declares)",
          resigned((claims) => new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: idp.signingKey().kid }).sign(new TextEncoder().encode(publicPem))),
          { reason: "token_unverified", jwksFetches: 0 },
        ],
        // Refused before Hookplane's own check: `none` is no algorithm the provider declares.
        ["alg none, no signature", resigned(async (claims) => `${base64url({ alg: "none" })}.${base64url(claims)}.`), { reason: "provider_error", jwksFetches: 0 }],
      ];
      for (const [what, replace, expected] of forgeries) {
        warn.mockClear();
        const attempt = await signInWith("mallory-sub", own, replace);
        expect(attempt.status, what).toBe(303);
        expect(attempt.location, what).toBe(`/sign-in?error=${expected.reason}&provider=${own}`);
        expect(attempt.setCookies.some((c) => c.startsWith(`${SESSION_COOKIE}=`)), what).toBe(false);
        expect(attempt.jwksFetches, what).toBe(expected.jwksFetches);
        // Recorded as every refused sign-in is: the reason and what was wrong, in the log.
        expect(warn, what).toHaveBeenCalledWith(expect.objectContaining({ reason: expected.reason, detail: expect.stringContaining("Signing IdP") }), "single sign-on refused");
      }
      expect(await userRow("mallory@example.com")).toBeUndefined();
      expect(await sessionCount()).toBe(sessions);
      expect(signInFailureMessage("token_unverified", "Signing IdP")).toBe(
        "Signing IdP's answer was not signed with its published keys, so it was refused and nobody was signed in. Start again; if it keeps happening, an admin should check the provider's issuer URL and what stands between it and Hookplane.",
      );

      // The provider rotates: a new key with a new kid signs. Hookplane's copy of the keys lacks it,
      // fetches them again at once (not a minute later), and the sign-in goes through.
      const rotated = await idp.rotateSigningKey();
      let issued = "";
      const afterRotation = await signInWith("mallory-sub", own, async (idToken) => (issued = idToken));
      expect(decodeProtectedHeader(issued).kid).toBe(rotated.kid);
      expect(afterRotation).toMatchObject({ status: 303, location: "/", jwksFetches: 1 });
      expect(afterRotation.session).toBeDefined();
      expect((await userRow("mallory@example.com"))?.role).toBe("viewer");
    } finally {
      warn.mockRestore();
      expect((await api(`/api/v1/auth/providers/${own}`, { method: "DELETE", cookie: adminSession })).status).toBe(204);
    }
  });
});

describe("the providers API", () => {
  test("only instance admins signed in read or change providers: 401 without a credential, 403 for any token, nothing changed", async () => {
    const self = await userRow(ADMIN.email);
    const operator = (await issueApiToken(t.db, { name: "op", role: "operator", userId: self.id, actor: "test" })).token;
    const viewer = (await issueApiToken(t.db, { name: "view", role: "viewer", userId: self.id, actor: "test" })).token;
    const before = await rows("select * from oidc_providers order by id");
    const audit = await rows("select count(*)::int as n from audit_log");
    const body = { name: "Sneaky", issuer: "https://idp.example.com", clientId: "c", clientSecret: "s" };
    // Even the instance admin's own admin token: instance-wide changes need a person signed in.
    for (const token of [operator, viewer, adminToken]) {
      expect((await api("/api/v1/auth/providers", { token })).status).toBe(403);
      expect((await api("/api/v1/auth/providers", { method: "POST", token, body })).status).toBe(403);
      expect((await api(`/api/v1/auth/providers/${providerId}`, { method: "PATCH", token, body: { name: "Renamed" } })).status).toBe(403);
      expect((await api(`/api/v1/auth/providers/${providerId}`, { method: "DELETE", token })).status).toBe(403);
      expect((await api("/api/v1/auth/settings", { method: "PUT", token, body: { passwordSignIn: false } })).status).toBe(403);
    }
    expect((await api("/api/v1/auth/providers")).status).toBe(401);
    expect((await api("/api/v1/auth/providers", { method: "POST", body })).status).toBe(401);
    expect(await rows("select * from oidc_providers order by id")).toEqual(before);
    expect(await rows("select count(*)::int as n from audit_log")).toEqual(audit);
  });

  test("the client secret is sealed, and never in an answer or an audit row", async () => {
    const created = await createProvider({ name: "Secretive", issuer: "https://login.example.com/realms/main", clientId: "hp", clientSecret: "the very secret value" });
    expect(created).toEqual({
      id: expect.any(String),
      name: "Secretive",
      issuer: "https://login.example.com/realms/main",
      clientId: "hp",
      scopes: ["openid", "email", "profile"],
      groupsClaim: "groups",
      roleMappings: [],
      defaultRole: null,
      createUsers: true,
      linkByEmail: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const patched = await api(`/api/v1/auth/providers/${created.id}`, { method: "PATCH", cookie: adminSession, body: { clientSecret: "a newer secret value", groupsClaim: "roles" } });
    expect(patched.status).toBe(200);
    const listed = await (await api("/api/v1/auth/providers", { cookie: adminSession })).json();
    expect(listed.callbackUrl).toBe(`${web.base}/auth/oidc/callback`);
    const everything = JSON.stringify([created, await patched.json(), listed, await rows("select before, after from audit_log")]);
    for (const secret of ["the very secret value", "a newer secret value", CLIENT_SECRET]) expect(everything).not.toContain(secret);
    const [stored] = await rows<{ client_secret_sealed: string }>("select client_secret_sealed from oidc_providers where id = $1", [created.id]);
    expect(stored.client_secret_sealed).not.toContain("secret");
    expect(getSecretBox().open(clientSecretName(created.id), stored.client_secret_sealed)).toBe("a newer secret value");
    expect(await rows("select action, after->>'clientSecretReplaced' as replaced from audit_log where entity_id = $1 order by id", [created.id])).toEqual([
      { action: "sso_provider.create", replaced: null },
      { action: "sso_provider.update", replaced: "true" },
    ]);
    expect((await api(`/api/v1/auth/providers/${created.id}`, { method: "DELETE", cookie: adminSession })).status).toBe(204);
    expect(await rows("select action from audit_log where entity_id = $1 order by id", [created.id])).toEqual([
      { action: "sso_provider.create" },
      { action: "sso_provider.update" },
      { action: "sso_provider.delete" },
    ]);
  });

  test("bad input is a 422 at its field; a taken name a 409; an unknown id a 404", async () => {
    const cases: [unknown, string][] = [
      [{ name: "", issuer: "https://a.example", clientId: "c", clientSecret: "s" }, "name"],
      [{ name: "X", issuer: "ftp://a.example", clientId: "c", clientSecret: "s" }, "issuer"],
      [{ name: "X", issuer: "https://a.example/?q=1", clientId: "c", clientSecret: "s" }, "issuer"],
      [{ name: "X", issuer: "http://idp.example.com", clientId: "c", clientSecret: "s" }, "issuer"],
      [{ name: "X", issuer: "https://a.example", clientId: "c" }, "clientSecret"],
      [{ name: "X", issuer: "https://a.example", clientId: "c", clientSecret: "s", roleMappings: [{ group: "g", role: "owner" }] }, "roleMappings[0].role"],
      [{ name: "X", issuer: "https://a.example", clientId: "c", clientSecret: "s", scopes: ["open id"] }, "scopes[0]"],
      [{ name: "X", issuer: "https://a.example", clientId: "c", clientSecret: "s", groupsClaim: "my groups" }, "groupsClaim"],
      [{ name: "X", issuer: "https://a.example", clientId: "c", clientSecret: "s", roleMappings: [{ group: "g", role: "viewer", project: "No Such" }] }, "roleMappings[0].project"],
      [{ name: "X", issuer: "https://a.example", clientId: "c", clientSecret: "s", roleMappings: [{ group: "g", role: "viewer", project: "no-such" }] }, "roleMappings[0].project"],
    ];
    for (const [body, path] of cases) {
      const res = await api("/api/v1/auth/providers", { method: "POST", cookie: adminSession, body });
      expect(res.status).toBe(422);
      const error = ((await res.json()) as { error: { issues: { path: string; message: string }[] } }).error;
      expect(error.issues[0].path).toBe(path);
    }
    const plainHttp = await api("/api/v1/auth/providers", { method: "POST", cookie: adminSession, body: { name: "X", issuer: "http://idp.example.com", clientId: "c", clientSecret: "s" } });
    expect(((await plainHttp.json()) as { error: { message: string } }).error.message).toBe(
      "issuer: plain http is allowed only to hosts in HOOKPLANE_ALLOW_PRIVATE_HOSTS (add idp.example.com there, or use https)",
    );
    const taken = await api("/api/v1/auth/providers", { method: "POST", cookie: adminSession, body: { name: "Test IdP", issuer: "https://a.example", clientId: "c", clientSecret: "s" } });
    expect(taken.status).toBe(409);
    expect((await api(`/api/v1/auth/providers/${providerId}`, { method: "PATCH", cookie: adminSession, body: {} })).status).toBe(422);
    expect((await api("/api/v1/auth/providers/00000000-0000-4000-8000-000000000000", { method: "PATCH", cookie: adminSession, body: { name: "Y" } })).status).toBe(404);
    expect((await api("/api/v1/auth/providers/not-a-uuid", { method: "DELETE", cookie: adminSession })).status).toBe(404);
  });
});

describe("turning password sign-in off", () => {
  test("refused until the admin doing it has signed in through single sign-on; then passwords are refused, password sessions end, tokens work", async () => {
    const passwordSession = (await signIn(t.db, { ...ADMIN, address: "192.0.2.2" })).sessionToken;
    const refused = await api("/api/v1/auth/settings", { method: "PUT", cookie: passwordSession, body: { passwordSignIn: false } });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/^Sign in through single sign-on yourself first \(Sign in with /);

    idp.accounts.set("ivy-sub", { email: "ivy@example.com", emailVerified: true, groups: ["hp-admins"] });
    const ivy = await signInAs("ivy-sub");
    // Groups give project roles, never the instance: an instance admin makes Ivy one.
    const ivyId = (await userRow("ivy@example.com")).id;
    expect((await api("/api/v1/auth/settings", { method: "PUT", cookie: ivy.session, body: { passwordSignIn: false } })).status).toBe(403);
    expect((await api(`/api/v1/users/${ivyId}`, { method: "PATCH", cookie: adminSession, body: { instanceAdmin: true } })).status).toBe(200);
    const off = await api("/api/v1/auth/settings", { method: "PUT", cookie: ivy.session, body: { passwordSignIn: false } });
    expect(off.status).toBe(200);
    expect(await off.json()).toEqual({ passwordSignIn: false, breakGlass: false });
    expect(await rows("select actor, before, after from audit_log where action = 'auth.password_sign_in'")).toEqual([
      { actor: "ivy@example.com", before: { enabled: true }, after: { enabled: false, endedSessionsOf: expect.any(Number) } },
    ]);

    // Passwords are refused with words for people; the password session ended; single sign-on and tokens work.
    const attempt = signIn(t.db, { ...ADMIN, address: "192.0.2.2" });
    await expect(attempt).rejects.toThrow(AppError);
    await expect(attempt).rejects.toMatchObject({ code: "password_sign_in_off", message: "Password sign-in is turned off here: sign in with your organization's single sign-on." });
    expect((await api("/api/v1/runs", { cookie: passwordSession })).status).toBe(401);
    expect((await api("/api/v1/runs", { cookie: ivy.session })).status).toBe(200);
    expect((await api("/api/v1/runs", { token: adminToken })).status).toBe(200);
    expect((await signInAs("ivy-sub")).location).toBe("/");

    // The last provider cannot go while passwords are off.
    const others = ((await (await api("/api/v1/auth/providers", { cookie: ivy.session })).json()) as { items: { id: string }[] }).items.filter((p) => p.id !== providerId);
    for (const p of others) expect((await api(`/api/v1/auth/providers/${p.id}`, { method: "DELETE", cookie: ivy.session })).status).toBe(204);
    const last = await api(`/api/v1/auth/providers/${providerId}`, { method: "DELETE", cookie: ivy.session });
    expect(last.status).toBe(409);

    // Break glass: the operator's switch lets instance admins' passwords in again, audited; nobody else's.
    const restore = setEnv({ HOOKPLANE_PASSWORD_BREAK_GLASS: "1" });
    try {
      const glass = await signIn(t.db, { ...ADMIN, address: "192.0.2.3" });
      expect(glass.user.instanceAdmin).toBe(true);
      adminSession = glass.sessionToken;
      expect(await rows("select actor, after from audit_log where action = 'sign_in.break_glass'")).toEqual([{ actor: ADMIN.email, after: { email: ADMIN.email } }]);
      await expect(signIn(t.db, { email: "dave@example.com", password: "long password 1", address: "192.0.2.3" })).rejects.toMatchObject({ code: "password_sign_in_off" });
    } finally {
      restore();
    }
    const on = await api("/api/v1/auth/settings", { method: "PUT", cookie: adminSession, body: { passwordSignIn: true } });
    expect(await on.json()).toEqual({ passwordSignIn: true, breakGlass: false });
    expect((await signIn(t.db, { ...ADMIN, address: "192.0.2.4" })).user.instanceAdmin).toBe(true);
  });
});

describe("mappings that name projects", () => {
  test("a group gives a role in the project its mapping names; losing it takes the person out of that project, audited there", async () => {
    const created = await api("/api/v1/projects", { method: "POST", cookie: adminSession, body: { slug: "team-a", name: "Team A" } });
    expect(created.status).toBe(201);
    const teamA = ((await created.json()) as { id: string }).id;
    const patched = await api(`/api/v1/auth/providers/${providerId}`, {
      method: "PATCH",
      cookie: adminSession,
      body: { roleMappings: [...MAPPINGS, { group: "hp-team-a", role: "operator", project: "team-a" }, { group: "hp-team-a-leads", role: "admin", project: "team-a" }] },
    });
    expect(patched.status).toBe(200);

    idp.accounts.set("jo-sub", { email: "jo@example.com", emailVerified: true, groups: ["hp-team-a", "hp-team-a-leads"] });
    const jo = await signInAs("jo-sub");
    expect(jo.location).toBe("/");
    const joId = (await userRow("jo@example.com")).id;
    const memberships = () => rows("select p.slug, m.role from project_members m join projects p on p.id = m.project_id where m.user_id = $1 order by p.slug", [joId]);
    // The default project gets the provider's default role (viewer); team-a the highest of its mappings.
    expect(await memberships()).toEqual([
      { slug: "default", role: "viewer" },
      { slug: "team-a", role: "admin" },
    ]);
    // The session acts in team-a when asked to.
    const inTeamA = await fetch(`${web.base}/api/v1/tokens`, { headers: { cookie: `${SESSION_COOKIE}=${jo.session}`, "x-hookplane-project": "team-a" } });
    expect(inTeamA.status).toBe(200);

    idp.accounts.set("jo-sub", { email: "jo@example.com", emailVerified: true, groups: ["hp-eng"] });
    const again = await signInAs("jo-sub");
    expect(again.location).toBe("/");
    expect(await memberships()).toEqual([{ slug: "default", role: "operator" }]);
    // The old session (team-a admin) ended with the demotion.
    expect((await fetch(`${web.base}/api/v1/tokens`, { headers: { cookie: `${SESSION_COOKIE}=${jo.session}` } })).status).toBe(401);
    const outOfTeamA = await fetch(`${web.base}/api/v1/tokens`, { headers: { cookie: `${SESSION_COOKIE}=${again.session}`, "x-hookplane-project": "team-a" } });
    expect(outOfTeamA.status).toBe(404);
    expect(await rows("select project_id, action, before, after from audit_log where entity_id = $1 and action like 'member.%' order by id", [joId])).toEqual([
      { project_id: DEFAULT_PROJECT_ID, action: "member.add", before: null, after: { email: "jo@example.com", role: "viewer", groups: ["hp-team-a", "hp-team-a-leads"] } },
      { project_id: teamA, action: "member.add", before: null, after: { email: "jo@example.com", role: "admin", groups: ["hp-team-a", "hp-team-a-leads"] } },
      { project_id: DEFAULT_PROJECT_ID, action: "member.role", before: { email: "jo@example.com", role: "viewer" }, after: { email: "jo@example.com", role: "operator", groups: ["hp-eng"] } },
      { project_id: teamA, action: "member.remove", before: { email: "jo@example.com", role: "admin" }, after: { email: "jo@example.com", role: null, groups: ["hp-eng"] } },
    ]);
    // Jo was team-a's last admin member: the project stays kept by the instance admins.
    const kept = await fetch(`${web.base}/api/v1/tokens`, { headers: { cookie: `${SESSION_COOKIE}=${adminSession}`, "x-hookplane-project": "team-a" } });
    expect(kept.status).toBe(200);
  });
});
