import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { callRoute } from "@/test/api-client";
import { issueApiToken } from "@/lib/platform/auth/account-service";
import * as route from "./route";
import { setEnv } from "@/test/config-env";
import { addPerson, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";

let t: TestDatabase;
let admin: string;
let operator: string;
let viewer: string;
let webhook: Server;
let webhookUrl: string;
const received: unknown[] = [];

beforeAll(async () => {
  // The webhook below listens on loopback, which the outbound guard refuses unless allow-listed.
  setEnv({ HOOKPLANE_ALLOW_PRIVATE_HOSTS: "127.0.0.1" });
  t = await createTestDatabase();
  installDatabase(t);
  admin = (await addToken(t.db, { role: "admin", name: "setup", userId: (await addPerson(t.db, { email: "a@example.com", instanceAdmin: true, passwordHash: await hashPassword("long enough") })).id })).token;
  operator = (await addToken(t.db, { role: "operator", name: "op" })).token;
  viewer = (await addToken(t.db, { role: "viewer", name: "v" })).token;
  webhook = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push(JSON.parse(body));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ continue: false, reason: "the webhook says no" }));
    });
  });
  await new Promise<void>((r) => webhook.listen(0, "127.0.0.1", r));
  webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  setEnv({ HOOKPLANE_ALLOW_PRIVATE_HOSTS: undefined });
  await new Promise((r) => webhook.close(r));
  await t.drop();
});

const post = (token: string, body: unknown) => callRoute(route.POST, { method: "POST", token, body });

test("a block hook against a tool.pre event returns the verdict and its ledger record, storing nothing", async () => {
  const res = await post(operator, {
    hook: { id: "no-prod", event: "tool.pre", matcher: "write_file", action: { type: "block", reason: "Production is off-limits", denyIf: "/srv/prod" } },
    event: { type: "tool.pre", toolName: "write_file", toolInput: { path: "/srv/prod/app.yml" }, toolCallId: "c1" },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ verdict: "block", reason: expect.stringContaining("Production is off-limits") });
  expect(res.body.ledger).toHaveLength(1);
  expect(res.body.ledger[0]).toMatchObject({ hookId: "no-prod", matched: true, verdict: "block" });

  const miss = await post(operator, {
    hook: { id: "no-prod", event: "tool.pre", matcher: "write_file", action: { type: "block", reason: "no", denyIf: "/srv/prod" } },
    event: { type: "tool.pre", toolName: "read_file", toolInput: { path: "/srv/prod/app.yml" } },
  });
  expect(miss.body.verdict).toBe("allow");
  expect(miss.body.ledger[0]).toMatchObject({ matched: false, reason: expect.stringContaining("matcher") });
  const { rows } = await t.execute("select count(*)::int as n from hook_invocations");
  expect(rows[0].n).toBe(0);
});

test("a chain of hooks: a real webhook answers with a decision", async () => {
  const res = await post(operator, {
    hooks: [
      { id: "ctx", event: "tool.pre", action: { type: "context", text: "Be careful." } },
      { id: "ask-webhook", event: "tool.pre", action: { type: "webhook", url: webhookUrl } },
    ],
    event: { type: "tool.pre", toolName: "shell", toolInput: { command: "ls" }, agentName: "tester" },
  });
  expect(res.body.verdict).toBe("block");
  expect(res.body.reason).toContain("the webhook says no");
  expect(res.body.context).toEqual(["Be careful."]);
  expect(received).toHaveLength(1);
  expect(received[0]).toMatchObject({ toolName: "shell", agentName: "tester" });
});

test("an approve hook asks nobody in a test: the timeout policy answers, marked as a timeout", async () => {
  const res = await post(operator, {
    hook: { id: "ask", event: "tool.pre", action: { type: "approve", timeoutMs: 1000, onTimeout: "allow" } },
    event: { type: "tool.pre", toolName: "shell", toolInput: {} },
  });
  expect(res.body.verdict).toBe("allow");
  expect(res.body.ledger[0].approval).toMatchObject({ timedOut: true, decision: "approve" });
});

test("bad input is 422 with the path; viewers cannot test; command hooks need an admin", async () => {
  const bad = await post(operator, { hook: { id: "x", event: "tool.pree", action: { type: "block" } }, event: { type: "tool.pre" } });
  expect(bad.status).toBe(422);
  expect(bad.body.error.issues[0]).toMatchObject({ path: "hook.event", message: expect.stringContaining('"tool.pre"') });
  expect((await post(viewer, { hook: { id: "x", event: "tool.pre", action: { type: "log" } }, event: { type: "tool.pre" } })).status).toBe(403);
  const cmd = { hook: { id: "c", event: "tool.pre", action: { type: "command", command: "exit 2" } }, event: { type: "tool.pre" } };
  expect((await post(operator, cmd)).status).toBe(403);
  const asAdmin = await post(admin, cmd);
  expect(asAdmin.status).toBe(200);
  // The trust switch is off here: the command hook fails with a clear reason, fail-closed on tool.pre.
  expect(asAdmin.body.verdict).toBe("block");
  expect(asAdmin.body.reason).toContain("HOOKPLANE_ALLOW_CODE_EXECUTION=1");
});
