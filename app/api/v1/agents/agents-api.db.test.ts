import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { listAudit } from "@/db/queries/audit";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { callRoute } from "@/test/api-client";
import { addToken, DEFAULT_PROJECT_ID } from "@/test/people";
import * as setupRoute from "../setup/route";
import * as tokensRoute from "../tokens/route";
import * as agentRoute from "./[id]/route";
import * as agentsRoute from "./route";

let t: TestDatabase;
let admin: string;
let viewer: string;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
});
afterAll(async () => {
  await t.drop();
});

describe("setup", () => {
  test("returns a token once, then 409", async () => {
    const bad = await callRoute(setupRoute.POST, { method: "POST", body: { email: "nope", password: "short" } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.issues.map((i: { path: string }) => i.path)).toEqual(["email", "password"]);

    const first = await callRoute(setupRoute.POST, { method: "POST", body: { email: "Admin@Example.com", password: "long enough" } });
    expect(first.status).toBe(201);
    expect(first.body.token).toMatch(/^hp_/);
    expect(first.body.user).toMatchObject({ email: "admin@example.com", role: "admin" });
    admin = first.body.token;

    const again = await callRoute(setupRoute.POST, { method: "POST", body: { email: "other@example.com", password: "long enough" } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("conflict");
  });
});

describe("tokens and roles", () => {
  test("an admin creates a viewer token, shown once and stored hashed", async () => {
    const created = await callRoute(tokensRoute.POST, { method: "POST", token: admin, body: { name: "read-only", role: "viewer" } });
    expect(created.status).toBe(201);
    viewer = created.body.token;
    const { rows } = await t.execute("select token_hash from api_tokens where name = 'read-only'");
    expect(rows[0].token_hash).not.toContain(viewer);
    expect(rows[0].token_hash).toHaveLength(64);
    const listed = await callRoute(tokensRoute.GET, { token: admin });
    expect(JSON.stringify(listed.body)).not.toContain(viewer);
  });

  test("no token is 401, a viewer writing is 403, a viewer reading is 200", async () => {
    expect((await callRoute(agentsRoute.GET)).status).toBe(401);
    expect((await callRoute(agentsRoute.GET, { token: "hp_not_a_token" })).status).toBe(401);
    const denied = await callRoute(agentsRoute.POST, { method: "POST", token: viewer, body: { name: "x" } });
    expect(denied.status).toBe(403);
    expect((await callRoute(agentsRoute.GET, { token: viewer })).status).toBe(200);
    expect((await callRoute(tokensRoute.POST, { method: "POST", token: viewer, body: { name: "n", role: "admin" } })).status).toBe(403);
  });
});

describe("agents", () => {
  // Tokens of the default project made directly, so these tests stand on the agents routes alone.
  let admin: string;
  let viewer: string;
  beforeAll(async () => {
    admin = (await addToken(t.db, { role: "admin", name: "agents-admin" })).token;
    viewer = (await addToken(t.db, { role: "viewer", name: "agents-viewer" })).token;
  });

  test("a wrong field type is 422 naming the field; malformed and oversized bodies are 4xx", async () => {
    const wrong = await callRoute(agentsRoute.POST, { method: "POST", token: admin, body: { name: "a1", maxTurns: "ten", tools: [1] } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.issues.map((i: { path: string }) => i.path)).toEqual(["tools[0]", "maxTurns"]);
    const scriptIssue = await callRoute(agentsRoute.POST, {
      method: "POST",
      token: admin,
      body: { name: "a1", script: [{ toolCalls: [{ input: {} }] }] },
    });
    expect(scriptIssue.body.error.issues[0].path).toBe("script[0].toolCalls[0].name");

    const malformed = await callRoute(agentsRoute.POST, { method: "POST", token: admin, rawBody: "{oops" });
    expect(malformed.status).toBe(400);
    const huge = await callRoute(agentsRoute.POST, { method: "POST", token: admin, rawBody: JSON.stringify({ name: "x".repeat(1_100_000) }) });
    expect(huge.status).toBe(413);
  });

  test("create, read by name or id, patch, conflict, delete, with an audit trail", async () => {
    const created = await callRoute(agentsRoute.POST, {
      method: "POST",
      token: admin,
      body: {
        name: "deployer",
        description: "ships",
        model: "scripted",
        instructions: "be careful",
        tools: ["shell"],
        maxTurns: 4,
        timeoutMs: 60_000,
        budgetUsd: 0.5,
        script: [{ text: "done", usage: { inputTokens: 3, outputTokens: 1 } }],
        metadataFile: "metadata.json",
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.body).toMatchObject({ name: "deployer", tools: ["shell"], maxTurns: 4, budgetUsd: 0.5, metadataFile: "metadata.json" });

    const byName = await callRoute(agentRoute.GET, { token: viewer, params: { id: "deployer" } });
    expect(byName.body.id).toBe(id);
    const byId = await callRoute(agentRoute.GET, { token: viewer, params: { id } });
    expect(byId.body.name).toBe("deployer");

    const dup = await callRoute(agentsRoute.POST, { method: "POST", token: admin, body: { name: "deployer" } });
    expect(dup.status).toBe(409);

    const patched = await callRoute(agentRoute.PATCH, { method: "PATCH", token: admin, params: { id }, body: { maxTurns: 9 } });
    expect(patched.status).toBe(200);
    // Fields left out keep their values (no schema default sneaks in).
    expect(patched.body).toMatchObject({ maxTurns: 9, description: "ships", budgetUsd: 0.5, tools: ["shell"], timeoutMs: 60_000, model: "scripted" });
    const unknownField = await callRoute(agentRoute.PATCH, { method: "PATCH", token: admin, params: { id }, body: { colour: "red" } });
    expect(unknownField.status).toBe(422);

    const audit = await listAudit(t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "agent", entityId: id, limit: 10 });
    expect(audit.map((a) => a.action)).toEqual(["agent.update", "agent.create"]);
    expect(audit[0].before).toMatchObject({ maxTurns: 4 });
    expect(audit[0].after).toMatchObject({ maxTurns: 9 });

    expect((await callRoute(agentRoute.DELETE, { method: "DELETE", token: viewer, params: { id } })).status).toBe(403);
    await t.execute(
      `insert into hooks (project_id, key, scope, event, spec) values ('${DEFAULT_PROJECT_ID}', 'guard', 'agent:${id}', 'tool.pre', '{"id":"guard","event":"tool.pre","action":{"type":"log"}}')`,
    );
    expect((await callRoute(agentRoute.DELETE, { method: "DELETE", token: admin, params: { id } })).status).toBe(204);
    const { rows } = await t.execute(`select count(*)::int as n from hooks where scope = 'agent:${id}'`);
    expect(rows[0].n).toBe(0);
    expect((await callRoute(agentRoute.GET, { token: admin, params: { id } })).status).toBe(404);
  });

  test("lists page with cursors", async () => {
    for (const name of ["p1", "p2", "p3", "p4", "p5"]) {
      await callRoute(agentsRoute.POST, { method: "POST", token: admin, body: { name } });
    }
    const seen: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const page: { body: { items: { name: string }[]; nextCursor: string | null } } = await callRoute(agentsRoute.GET, {
        token: admin,
        path: `/api/v1/agents?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      });
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((a) => a.name));
      cursor = page.body.nextCursor;
    }
    expect(seen).toEqual(["p1", "p2", "p3", "p4", "p5"]);
    const badLimit = await callRoute(agentsRoute.GET, { token: admin, path: "/api/v1/agents?limit=0" });
    expect(badLimit.status).toBe(422);
    expect(badLimit.body.error.issues[0].path).toBe("limit");
  });
});
