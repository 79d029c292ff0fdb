/**
 * `hookplane login` / `logout` (issue 27): the real CLI against the real route handlers. The CLI
 * prints a code, the person approves it (the /device page's action; the page itself is driven in
 * Chromium by e2e/device-login.spec.ts), and the CLI stores a bridge credential of theirs, 0600 in
 * a 0700 folder; `hookplane hook` then sends as them with no HOOKPLANE_TOKEN; logout revokes it.
 * From the wrong side: a denied code, an expired one, a code used twice, a poll too fast, a person
 * removed between approving and the poll, a non-member's project.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { startRouteServer, type RouteServer } from "@/lib/platform/api/route-server";
import { callRoute } from "@/test/api-client";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPerson, addProject, addToken } from "@/test/people";
import * as codeRoute from "@/app/api/v1/device/code/route";
import * as tokenRoute from "@/app/api/v1/device/token/route";
import * as revokeRoute from "@/app/api/v1/credentials/revoke/route";
import * as hooksRoute from "@/app/api/v1/hooks/route";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import { decideDevice } from "./device-flow";
import { removeMemberAudited } from "./user-service";
import type { Principal } from "./roles";

const CLI = path.resolve(import.meta.dirname, "../../../bin/hookplane.cjs");
let t: TestDatabase;
let server: RouteServer;
let configDir: string;
let dev: { id: string; email: string };
let dana: Principal;

const asPerson = (user: { id: string; email: string }, projectId = DEFAULT_PROJECT_ID): Principal => ({
  kind: "user",
  id: user.id,
  userId: user.id,
  email: user.email,
  label: user.email,
  role: "operator",
  projectId,
  projectSlug: "default",
  instanceAdmin: false,
});

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  dev = await addPerson(t.db, { email: "dev@example.com", role: "operator" });
  const other = await addPerson(t.db, { email: "dana@example.com", role: "viewer" });
  dana = asPerson(other);
  await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "dev-agent" }) });
  configDir = mkdtempSync(path.join(tmpdir(), "hookplane-config-"));
  server = await startRouteServer([
    { method: "POST", path: "/api/v1/device/code", handler: codeRoute.POST },
    { method: "POST", path: "/api/v1/device/token", handler: tokenRoute.POST },
    { method: "POST", path: "/api/v1/credentials/revoke", handler: revokeRoute.POST },
    { method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST },
  ]);
});
afterAll(async () => {
  await server?.close();
  rmSync(configDir, { recursive: true, force: true });
  await t?.drop();
});

/** `hookplane login`, its output followed line by line; resolves the code it shows, and its exit. */
function startLogin(env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, "login", "--url", server.url, "--name", "dev-laptop"], {
    env: { ...process.env, HOOKPLANE_TOKEN: undefined, HOOKPLANE_URL: undefined, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const code = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (d) => {
      stdout += d;
      const shown = /code ([A-Z]{4}-[A-Z]{4})/.exec(stdout);
      if (shown) resolve(shown[1]);
    });
    child.on("exit", () => reject(new Error(`login exited before it showed a code: ${stdout} ${stderr}`)));
  });
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on("exit", (exitCode) => resolve({ code: exitCode, stdout, stderr })));
  return { code, exited };
}

const preToolUse = (session: string) => ({ session_id: session, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_1" });

test("login → approve in the browser → a bridge credential of the person, 0600; hook sends as them; logout revokes it", async () => {
  const login = startLogin({ HOOKPLANE_CONFIG_DIR: configDir });
  const userCode = await login.code;
  const approved = await decideDevice(t.db, asPerson(dev), { userCode: userCode.replace("-", ""), decision: "approve", project: DEFAULT_PROJECT_ID });
  expect(approved).toEqual({ name: "dev-laptop", decision: "approve", project: "default" });
  const done = await login.exited;
  expect(done.code).toBe(0);
  expect(done.stdout).toContain("Signed in as dev@example.com in project default");
  // The link is the dashboard's public URL (HOOKPLANE_PUBLIC_URL), whatever address the CLI used.
  expect(done.stdout).toContain(`/device?code=${userCode}`);

  const file = path.join(configDir, "credentials.json");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(configDir).mode & 0o777).toBe(0o700);
  const stored = JSON.parse(readFileSync(file, "utf8"));
  expect(stored).toMatchObject({ url: server.url, email: "dev@example.com", project: "default" });
  expect(stored.token).toMatch(/^hpb_/);
  const [row] = (await t.execute("select kind, name, user_id from api_tokens where prefix = $1", [stored.token.slice(0, 11)])).rows;
  expect(row).toEqual({ kind: "bridge", name: "dev-laptop", user_id: dev.id });
  // A bridge credential: not a key to the hooks.
  expect((await callRoute(hooksRoute.GET, { token: stored.token })).status).toBe(403);

  // The hook CLI finds it by itself: no HOOKPLANE_TOKEN, no HOOKPLANE_URL.
  const hook = await runHookplaneCli(["hook", "claude-code", "--agent", "dev-agent"], preToolUse("login-session"), { HOOKPLANE_CONFIG_DIR: configDir, HOOKPLANE_TOKEN: undefined, HOOKPLANE_URL: undefined });
  expect(hook.code).toBe(0);
  const [run] = (await t.execute("select actor_user_id, actor_label from runs where external_session_id = 'login-session'")).rows;
  expect(run).toEqual({ actor_user_id: dev.id, actor_label: "dev@example.com" });

  const out = await runHookplaneCli(["logout"], "", { HOOKPLANE_CONFIG_DIR: configDir });
  expect(out.code).toBe(0);
  expect(out.stdout).toContain("Signed out: the credential of dev@example.com is revoked");
  expect(() => statSync(file)).toThrow();
  const [revoked] = (await t.execute("select revoked_at is not null as revoked from api_tokens where prefix = $1", [stored.token.slice(0, 11)])).rows;
  expect(revoked).toEqual({ revoked: true });
  // Signed out: the next tool call is refused (fail closed), and the old secret is refused too.
  const after = await runHookplaneCli(["hook", "claude-code", "--agent", "dev-agent"], preToolUse("login-session"), { HOOKPLANE_CONFIG_DIR: configDir, HOOKPLANE_TOKEN: undefined, HOOKPLANE_URL: server.url });
  expect(after.code).toBe(2);
  expect(after.stderr).toContain("not signed in");
  const direct = await callRoute(claudeCodeRoute.POST, { method: "POST", token: stored.token, headers: { "x-hookplane-agent": "dev-agent" }, body: preToolUse("login-session") });
  expect(direct.status).toBe(401);
});

async function startCode() {
  const res = await callRoute(codeRoute.POST, { method: "POST", body: { name: "box" } });
  expect(res.status).toBe(201);
  return res.body as { deviceCode: string; userCode: string; interval: number };
}
const poll = (deviceCode: string) => callRoute(tokenRoute.POST, { method: "POST", body: { deviceCode } });

test("from the wrong side: pending, too fast, denied, expired, used twice, approver removed before the poll, another project", async () => {
  const pending = await startCode();
  expect((await poll(pending.deviceCode)).body.error.code).toBe("authorization_pending");
  expect((await poll(pending.deviceCode)).body.error.code).toBe("slow_down");

  const denied = await startCode();
  await decideDevice(t.db, dana, { userCode: denied.userCode.replace("-", ""), decision: "deny" });
  const refused = await poll(denied.deviceCode);
  expect([refused.status, refused.body.error.code]).toEqual([403, "access_denied"]);
  // A decided code cannot be decided again.
  await expect(decideDevice(t.db, dana, { userCode: denied.userCode.replace("-", ""), decision: "approve" })).rejects.toThrow(/pending code/);

  const expired = await startCode();
  await t.execute("update device_authorizations set expires_at = now() - interval '1 second' where user_code = $1", [expired.userCode.replace("-", "")]);
  await expect(decideDevice(t.db, dana, { userCode: expired.userCode.replace("-", ""), decision: "approve" })).rejects.toThrow(/pending code/);
  expect((await poll(expired.deviceCode)).body.error.code).toBe("expired_token");

  const once = await startCode();
  await decideDevice(t.db, dana, { userCode: once.userCode.replace("-", ""), decision: "approve" });
  const first = await poll(once.deviceCode);
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ email: "dana@example.com", project: "default" });
  const again = await poll(once.deviceCode);
  expect([again.status, again.body.error.code]).toEqual([400, "invalid_grant"]);
  expect((await poll("x".repeat(43))).body.error.code).toBe("invalid_grant");

  const gone = await addPerson(t.db, { email: "leaver@example.com", role: "operator" });
  const late = await startCode();
  await decideDevice(t.db, asPerson(gone), { userCode: late.userCode.replace("-", ""), decision: "approve" });
  const lead: Principal = { ...asPerson(dev), role: "admin", instanceAdmin: true };
  await removeMemberAudited(t.db, lead, { projectId: DEFAULT_PROJECT_ID, userId: gone.id });
  const none = await poll(late.deviceCode);
  expect([none.status, none.body.error.code]).toEqual([403, "access_denied"]);
  const [{ n }] = (await t.execute("select count(*)::integer as n from api_tokens where user_id = $1", [gone.id])).rows as { n: number }[];
  expect(n).toBe(0);

  // A project the person is not a member of cannot be picked.
  const elsewhere = await addProject(t.db, { slug: "elsewhere" });
  const wrongProject = await startCode();
  await expect(decideDevice(t.db, dana, { userCode: wrongProject.userCode.replace("-", ""), decision: "approve", project: elsewhere.id })).rejects.toThrow(/not a member/);
  // A token (even an admin's) approves nothing: the person must be signed in.
  const tokenPrincipal: Principal = { ...asPerson(dev), kind: "token", id: (await addToken(t.db, { role: "admin", userId: dev.id })).id };
  await expect(decideDevice(t.db, tokenPrincipal, { userCode: wrongProject.userCode.replace("-", ""), decision: "approve" })).rejects.toThrow(/Sign in/);
});

test("bad input: the code and token endpoints answer 4xx at the field, never a 500", async () => {
  const shortCode = await callRoute(tokenRoute.POST, { method: "POST", body: { deviceCode: "short" } });
  expect(shortCode.status).toBe(422);
  expect(shortCode.body.error.issues[0].path).toBe("deviceCode");
  const longName = await callRoute(codeRoute.POST, { method: "POST", body: { name: "x".repeat(101) } });
  expect([longName.status, longName.body.error.issues[0].path]).toEqual([422, "name"]);
  const revokeNothing = await callRoute(revokeRoute.POST, { method: "POST", body: { token: "hpb_not-a-real-one" } });
  expect([revokeNothing.status, revokeNothing.body]).toEqual([200, { revoked: false }]);
});
