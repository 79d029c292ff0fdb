import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { createRun } from "@/db/queries/runs";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { callRoute } from "@/test/api-client";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { createRunHookRuntime } from "@/lib/features/hooks/hook-runtime-factory";
import * as listRoute from "@/app/api/v1/secrets/route";
import * as nameRoute from "@/app/api/v1/secrets/[name]/route";
import { SecretDecryptError } from "@/lib/platform/security/secret-box";
import { forgetSecretBox, getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { listSecretsWithSources, readSecretValue } from "./secret-store";
import { setEnv } from "@/test/config-env";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { addPerson, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";

const VALUE = "tok-4f9a-very-secret-value";
let t: TestDatabase;
let admin: string;
let operator: string;
let webhook: Server;
let webhookUrl: string;
const received: IncomingHttpHeaders[] = [];
const originalKey = process.env.HOOKPLANE_SECRET_KEY;

beforeAll(async () => {
  setEnv({ HOOKPLANE_SECRET_KEY: randomBytes(32).toString("base64") });
  // The listener is on loopback, which the outbound guard refuses unless the allow-list names it.
  setEnv({ HOOKPLANE_ALLOW_PRIVATE_HOSTS: "127.0.0.1" });
  forgetSecretBox();
  t = await createTestDatabase();
  installDatabase(t);
  admin = (await addToken(t.db, { role: "admin", name: "setup", userId: (await addPerson(t.db, { email: "a@example.com", instanceAdmin: true, passwordHash: await hashPassword("long enough") })).id })).token;
  operator = (await addToken(t.db, { role: "operator", name: "op" })).token;
  // Echoes the Authorization header back, so the value would reach the ledger if nothing redacted it.
  webhook = createServer((req, res) => {
    received.push(req.headers);
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ echo: req.headers.authorization })));
  });
  await new Promise<void>((r) => webhook.listen(0, "127.0.0.1", r));
  webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`;
});
afterEach(() => {
  received.length = 0;
});
afterAll(async () => {
  setEnv({ HOOKPLANE_ALLOW_PRIVATE_HOSTS: undefined });
  await new Promise((r) => webhook.close(r));
  await t.drop();
  setEnv({ HOOKPLANE_SECRET_KEY: originalKey });
  forgetSecretBox();
});

const put = (token: string, name: string, body: unknown) => callRoute(nameRoute.PUT, { method: "PUT", token, body, params: { name } });
const del = (token: string, name: string) => callRoute(nameRoute.DELETE, { method: "DELETE", token, params: { name } });
const list = (token: string) => callRoute(listRoute.GET, { token });

test("set, replace, list and delete: the value is sealed at rest and never in an answer or an audit row", async () => {
  const created = await put(admin, "DEPLOY_TOKEN", { value: VALUE, hosts: ["deploy.example.com"] });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ name: "DEPLOY_TOKEN", hosts: ["deploy.example.com"] });
  // Hosts omitted: the stored ones stay.
  const replaced = await put(admin, "DEPLOY_TOKEN", { value: `${VALUE}-2` });
  expect(replaced.status).toBe(200);
  expect(replaced.body).toMatchObject({ hosts: ["deploy.example.com"] });

  const listed = await list(admin);
  expect(listed.status).toBe(200);
  expect(listed.body.items).toEqual([{ name: "DEPLOY_TOKEN", hosts: ["deploy.example.com"], createdAt: expect.any(String), updatedAt: expect.any(String) }]);

  const { rows } = await t.execute("select ciphertext from secrets where name = 'DEPLOY_TOKEN'");
  expect(String(rows[0].ciphertext)).not.toContain(VALUE);
  expect(await readSecretValue(t.db, getSecretBox, { projectId: DEFAULT_PROJECT_ID, name: "DEPLOY_TOKEN" })).toBe(`${VALUE}-2`);

  const audit = await t.execute("select action, entity_id, before, after from audit_log where entity_type = 'secret' order by id");
  expect(audit.rows.map((r) => r.action)).toEqual(["secret.create", "secret.update"]);
  expect(JSON.stringify(audit.rows)).not.toContain(VALUE);
  for (const answer of [created, replaced, listed]) expect(JSON.stringify(answer.body)).not.toContain(VALUE);

  expect((await del(admin, "DEPLOY_TOKEN")).status).toBe(204);
  expect((await del(admin, "DEPLOY_TOKEN")).status).toBe(404);
  expect((await list(admin)).body.items).toEqual([]);
  const deletions = await t.execute("select after, before from audit_log where action = 'secret.delete'");
  expect(deletions.rows).toEqual([{ after: null, before: { name: "DEPLOY_TOKEN" } }]);
});

test("only admins, only upper-case names, never an empty value", async () => {
  expect((await list(operator)).status).toBe(403);
  expect((await put(operator, "X_TOKEN", { value: "abcd" })).status).toBe(403);
  expect((await del(operator, "X_TOKEN")).status).toBe(403);

  const badName = await put(admin, "lower-case", { value: "abcd" });
  expect(badName.status).toBe(422);
  expect(badName.body.error.issues[0].path).toBe("name");
  const empty = await put(admin, "EMPTY", { value: "" });
  expect(empty.status).toBe(422);
  expect(empty.body.error.issues[0].path).toBe("value");
  for (const bad of ["*", "https://x.example.com", "x.example.com:443", "x.example.com/path"]) {
    const badHost = await put(admin, "HOSTED", { value: "abcd", hosts: ["ok.example.com", bad] });
    expect(badHost.status).toBe(422);
    expect(badHost.body.error.issues[0].path).toBe("hosts[1]");
  }
  expect((await del(admin, "9BAD")).status).toBe(422);
});

async function runForLedger() {
  const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: `secret-agent-${randomBytes(3).toString("hex")}`, model: "scripted" }) }))!;
  return createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "go", source: "test" });
}

const webhookHook = (header: string) =>
  hookSpecSchema.parse({
    id: "notify-with-token",
    scope: "global",
    event: "session.end",
    action: { type: "webhook", url: webhookUrl, headers: { authorization: `Bearer \${secret:${header}}` } },
  });

async function dispatchWebhook(secretName: string) {
  const run = await runForLedger();
  const writes: Promise<unknown>[] = [];
  const runtime = createRunHookRuntime({ db: t.db, projectId: DEFAULT_PROJECT_ID, track: (w) => writes.push(w) });
  const result = await runtime.dispatch([webhookHook(secretName)], {
    type: "session.end",
    runId: run.id,
    agentName: "secret-agent",
    ts: Date.now(),
    data: { outcome: "completed", response: "done" },
  });
  await Promise.all(writes);
  return { result, ledger: await listRunHookInvocations(t.db, { runId: run.id }) };
}

test("a webhook hook naming ${secret:NAME} sends the stored value to a host it lists; the ledger shows it redacted", async () => {
  expect((await put(admin, "HOOK_TOKEN", { value: VALUE, hosts: ["127.0.0.1"] })).status).toBe(201);
  const { result, ledger } = await dispatchWebhook("HOOK_TOKEN");

  expect(received).toHaveLength(1);
  expect(received[0].authorization).toBe(`Bearer ${VALUE}`);
  expect(result.ledger[0]).toMatchObject({ hookId: "notify-with-token", matched: true, failed: false });
  expect(ledger).toHaveLength(1);
  expect(ledger[0].stdout).toContain("[REDACTED]");
  expect(JSON.stringify(ledger)).not.toContain(VALUE);
});

test("a name missing from the store falls back to HOOKPLANE_SECRET_<NAME>, sent only to HOOKPLANE_SECRET_<NAME>_HOSTS", async () => {
  setEnv({ HOOKPLANE_SECRET_ENV_ONLY_TOKEN: "from-the-environment" });
  try {
    const unbound = await dispatchWebhook("ENV_ONLY_TOKEN");
    expect(received).toHaveLength(0);
    expect(unbound.ledger[0]).toMatchObject({ failed: true, reason: expect.stringContaining("secret ENV_ONLY_TOKEN may not be sent to 127.0.0.1") });
    setEnv({ HOOKPLANE_SECRET_ENV_ONLY_TOKEN_HOSTS: "hooks.example.com, 127.0.0.1" });
    await dispatchWebhook("ENV_ONLY_TOKEN");
    expect(received[0].authorization).toBe("Bearer from-the-environment");
  } finally {
    setEnv({ HOOKPLANE_SECRET_ENV_ONLY_TOKEN: undefined });
    setEnv({ HOOKPLANE_SECRET_ENV_ONLY_TOKEN_HOSTS: undefined });
  }
});

test("Settings and the runtime agree on where a secret comes from: the store first, the environment for a name the store lacks", async () => {
  setEnv({
    HOOKPLANE_SECRET_SHARED_TOKEN: "the-environment-copy",
    HOOKPLANE_SECRET_SHARED_TOKEN_HOSTS: "127.0.0.1",
    HOOKPLANE_SECRET_ONLY_ENV_TOKEN: "only-in-the-environment",
    HOOKPLANE_SECRET_ONLY_ENV_TOKEN_HOSTS: "127.0.0.1",
  });
  try {
    expect((await put(admin, "SHARED_TOKEN", { value: "the-stored-copy", hosts: ["127.0.0.1"] })).status).toBe(201);
    // What Settings lists (app/(dashboard)/settings/page.tsx renders these sources).
    const listed = new Map((await listSecretsWithSources(t.db, DEFAULT_PROJECT_ID)).map((s) => [s.name, s]));
    expect(listed.get("SHARED_TOKEN")).toMatchObject({ hosts: ["127.0.0.1"], source: { kind: "store", shadows: "HOOKPLANE_SECRET_SHARED_TOKEN" } });
    expect(listed.get("ONLY_ENV_TOKEN")).toMatchObject({ hosts: ["127.0.0.1"], source: { kind: "environment", variable: "HOOKPLANE_SECRET_ONLY_ENV_TOKEN" } });
    // What a hook gets.
    await dispatchWebhook("SHARED_TOKEN");
    await dispatchWebhook("ONLY_ENV_TOKEN");
    expect(received.map((r) => r.authorization)).toEqual(["Bearer the-stored-copy", "Bearer only-in-the-environment"]);
    // The stored one goes: Settings and the runtime both fall back to the environment.
    expect((await del(admin, "SHARED_TOKEN")).status).toBe(204);
    expect((await listSecretsWithSources(t.db, DEFAULT_PROJECT_ID)).find((s) => s.name === "SHARED_TOKEN")?.source).toEqual({ kind: "environment", variable: "HOOKPLANE_SECRET_SHARED_TOKEN" });
    await dispatchWebhook("SHARED_TOKEN");
    expect(received.at(-1)?.authorization).toBe("Bearer the-environment-copy");
  } finally {
    setEnv({ HOOKPLANE_SECRET_SHARED_TOKEN: undefined, HOOKPLANE_SECRET_SHARED_TOKEN_HOSTS: undefined, HOOKPLANE_SECRET_ONLY_ENV_TOKEN: undefined, HOOKPLANE_SECRET_ONLY_ENV_TOKEN_HOSTS: undefined });
  }
});

test("a value sealed with another key fails clearly, in the store and in the hook that needs it", async () => {
  expect((await put(admin, "ROTATED_TOKEN", { value: VALUE, hosts: ["127.0.0.1"] })).status).toBe(201);
  setEnv({ HOOKPLANE_SECRET_KEY: randomBytes(32).toString("hex") });
  forgetSecretBox();

  await expect(readSecretValue(t.db, getSecretBox, { projectId: DEFAULT_PROJECT_ID, name: "ROTATED_TOKEN" })).rejects.toThrow(SecretDecryptError);
  await expect(readSecretValue(t.db, getSecretBox, { projectId: DEFAULT_PROJECT_ID, name: "ROTATED_TOKEN" })).rejects.toThrow(/ROTATED_TOKEN could not be decrypted/);

  const { result, ledger } = await dispatchWebhook("ROTATED_TOKEN");
  expect(received).toHaveLength(0);
  expect(result.ledger[0]).toMatchObject({ failed: true, reason: expect.stringContaining("ROTATED_TOKEN could not be decrypted") });
  expect(ledger[0].failed).toBe(true);
});
