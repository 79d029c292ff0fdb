/**
 * The retention windows through the API: the instance's (`GET/PUT /api/v1/settings/retention`) and
 * an agent's own (`retentionDays`). Admins change them (a shorter window deletes records), with an
 * audit row; bad values are a 422 naming the field; everyone else is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { openSession } from "@/lib/platform/auth/account-service";
import { retentionSettingsFromForm, retentionSettingsSchema } from "@/lib/features/retention/retention-settings";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import * as agentRoute from "@/app/api/v1/agents/[id]/route";
import * as agentsRoute from "@/app/api/v1/agents/route";
import * as route from "./route";
import { addPerson, addToken } from "@/test/people";

let t: TestDatabase;
let admin: string;
let operator: string;
let viewer: string;
let cookie: string;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  // An instance admin, with an admin token of the default project and a session.
  const root = await addPerson(t.db, { email: "admin@example.com", instanceAdmin: true });
  admin = (await addToken(t.db, { role: "admin", name: "setup", userId: root.id })).token;
  cookie = await openSession(t.db, { userId: root.id });
  operator = (await addToken(t.db, { role: "operator", name: "ops" })).token;
  viewer = (await addToken(t.db, { role: "viewer", name: "eyes" })).token;
});
afterAll(async () => {
  await t?.drop();
});

/** The instance admin's session: the windows are the instance's, and tokens never act for it. */
const asInstanceAdmin = () => ({ headers: { cookie: `hp_session=${cookie}`, origin: "http://localhost" } });

const put = (body: unknown, init: { token?: string; headers?: Record<string, string> } = asInstanceAdmin()) =>
  callRoute(route.PUT, { method: "PUT", path: "/api/v1/settings/retention", body, ...init });

describe("the instance's windows", () => {
  test("keep forever until set; an instance admin sets them, audited; anyone signed in reads them", async () => {
    expect(await callRoute(route.GET, { token: viewer })).toEqual({ status: 200, body: { runDays: 0, ledgerDays: 0, auditDays: 0 } });
    const res = await put({ runDays: 30, ledgerDays: 90, auditDays: 365 });
    expect(res).toEqual({ status: 200, body: { runDays: 30, ledgerDays: 90, auditDays: 365 } });
    expect((await callRoute(route.GET, { token: viewer })).body).toEqual({ runDays: 30, ledgerDays: 90, auditDays: 365 });
    const { rows } = await t.execute("select actor, entity_id, before, after from audit_log where action = 'settings.retention'");
    const json = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v);
    expect(rows.map((r) => ({ ...r, before: json(r.before), after: json(r.after) }))).toEqual([
      { actor: "admin@example.com", entity_id: "retention", before: { runDays: 0, ledgerDays: 0, auditDays: 0 }, after: { runDays: 30, ledgerDays: 90, auditDays: 365 } },
    ]);
  });

  test("bad values are a 422 naming the field, and change nothing", async () => {
    const cases: [unknown, string][] = [
      [{ runDays: -1, ledgerDays: 0, auditDays: 0 }, "runDays"],
      [{ runDays: 1.5, ledgerDays: 0, auditDays: 0 }, "runDays"],
      [{ runDays: "7", ledgerDays: 0, auditDays: 0 }, "runDays"],
      [{ runDays: 7, ledgerDays: 36_501, auditDays: 0 }, "ledgerDays"],
      [{ runDays: 7, ledgerDays: 7 }, "auditDays"],
      [{ runDays: 7, ledgerDays: 7, auditDays: null }, "auditDays"],
      [{ runDays: 7, ledgerDays: 7, auditDays: 7, keep: "all" }, "(root)"],
    ];
    for (const [body, path] of cases) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(res.body.error.issues.map((i: { path: string }) => i.path), JSON.stringify(body)).toContain(path);
    }
    expect((await put([])).status).toBe(422);
    expect((await callRoute(route.PUT, { method: "PUT", ...asInstanceAdmin(), rawBody: "{not json" })).status).toBe(400);
    expect((await callRoute(route.GET, { token: viewer })).body).toEqual({ runDays: 30, ledgerDays: 90, auditDays: 365 });
  });

  test("a project admin's token, operator and viewer 403, no token 401, another origin riding the cookie 403", async () => {
    const body = { runDays: 1, ledgerDays: 1, auditDays: 1 };
    expect((await put(body, { token: admin })).status).toBe(403);
    expect((await put(body, { token: operator })).status).toBe(403);
    expect((await put(body, { token: viewer })).status).toBe(403);
    expect((await put(body, {})).status).toBe(401);
    const foreign = await put(body, { headers: { cookie: `hp_session=${cookie}`, origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe("cross_origin");
    expect((await callRoute(route.GET, { token: viewer })).body).toEqual({ runDays: 30, ledgerDays: 90, auditDays: 365 });
  });

  test("the form: an empty field keeps forever, a word is refused at its field", () => {
    const form = new FormData();
    form.set("runDays", " ");
    form.set("ledgerDays", "14");
    form.set("auditDays", "a year");
    const parsed = retentionSettingsSchema.safeParse(retentionSettingsFromForm(form));
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => i.path.join("."))).toEqual(["auditDays"]);
    form.set("auditDays", "");
    expect(retentionSettingsSchema.parse(retentionSettingsFromForm(form))).toEqual({ runDays: 0, ledgerDays: 14, auditDays: 0 });
  });
});

describe("an agent's own window", () => {
  test("only an admin sets or changes it; an operator still edits the rest; bad values 422 at retentionDays", async () => {
    const spec = { name: "kept-a-week", model: "scripted", tools: [], maxTurns: 3, timeoutMs: 10_000 };
    const refused = await callRoute(agentsRoute.POST, { method: "POST", token: operator, body: { ...spec, retentionDays: 7 } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/retentionDays/);
    const created = await callRoute(agentsRoute.POST, { method: "POST", token: admin, body: { ...spec, retentionDays: 7 } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const patch = (body: unknown, token: string) => callRoute(agentRoute.PATCH, { method: "PATCH", token, params: { id }, body });
    expect((await patch({ retentionDays: 1 }, operator)).status).toBe(403);
    expect((await patch({ retentionDays: null }, operator)).status).toBe(422);
    expect((await patch({ description: "still editable" }, operator)).status).toBe(200);
    for (const bad of [-3, 2.5, "7", 100_000]) {
      const res = await patch({ retentionDays: bad }, admin);
      expect(res.status, String(bad)).toBe(422);
      expect(res.body.error.issues.map((i: { path: string }) => i.path)).toEqual(["retentionDays"]);
    }
    expect((await patch({ retentionDays: 0 }, admin)).status).toBe(200);
    expect((await callRoute(agentRoute.GET, { token: viewer, params: { id } })).body).toMatchObject({ retentionDays: 0, description: "still editable" });
    const { rows } = await t.execute("select count(*)::int as n from audit_log where action = 'agent.update' and entity_id = $1", [id]);
    expect(rows[0].n).toBe(2);
  });
});
