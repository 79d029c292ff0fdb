/**
 * Hostile input, property-based: every route handler and method under app/api/v1 (found from the
 * file tree) and every server action gets requests built from its own schema and example with one
 * hostile value, and generic hostile requests (malformed, truncated, deep and huge JSON, wrong
 * content types, forged cursors, traversal and SQL in ids, broken cookies). For each: no 5xx (no
 * "something went wrong" from an action), no thrown handler, no stack, SQL or path in an error,
 * and a database exactly as before unless the answer was a success.
 *
 * FUZZ_RUNS sets how many requests go to the routes (default 300; the actions get a third of it).
 * FUZZ_SEED replays a run.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { createRun } from "@/db/queries/runs";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { SESSION_COOKIE } from "@/lib/platform/auth/principal";
import { snapshotChanges, snapshotDatabase } from "@/test/hostile/database-snapshot";
import {
  forgedCursor,
  hostileContentType,
  hostileId,
  hostileQueryValue,
  hostileRawBody,
  hostileText,
  hostileValue,
  leafPaths,
  mutatedBody,
  schemaKeys,
  toJsonText,
  withValueAt,
} from "@/test/hostile/hostile-values";
import { loadRouteCatalog, type CatalogRoute } from "@/test/hostile/route-catalog";
import { loadServerActions } from "@/test/hostile/server-actions";
import { buildHostileWorld, exampleBodies, exampleQueries, existingParams, type HostileWorld } from "@/test/hostile/route-fixtures";
import type { RunQueue } from "@/lib/features/runs/queue/run-queue";
import { installRunQueue } from "@/lib/features/runs/queue/run-queue-registry";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

// The server actions run in-process: Next's request APIs become a cookie jar we control.
const jar = vi.hoisted(() => ({ session: undefined as string | undefined }));
vi.mock("server-only", () => ({}));
vi.mock("next/headers", () => ({
  cookies: async () => ({
    get: (name: string) => (name === "hp_session" && jar.session !== undefined ? { name, value: jar.session } : undefined),
    set: () => {},
    delete: () => {},
  }),
  headers: async () => new Headers(),
}));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));
vi.mock("next/navigation", () => ({
  redirect: (url: string) => {
    throw Object.assign(new Error("NEXT_REDIRECT"), { digest: `NEXT_REDIRECT;replace;${url};307;` });
  },
}));

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
/** What a database error or a stack looks like (a validation message may quote the client's own SQL-ish text). */
const LEAK = /\n\s+at |node_modules|\/work\/|syntax error at or near|violates [a-z ]*constraint|relation "[^"]*" does not exist|invalid input syntax for|Failed query|PGlite|postgres\.js/i;

let t: TestDatabase;
let world: HostileWorld;
let routes: CatalogRoute[];

const fakeQueue: RunQueue = { enqueue: async () => {}, cancel: async () => {}, active: 0, sweeps: 0, stop: async () => {} };

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  installRunQueue(fakeQueue);
  world = await buildHostileWorld(t);
  routes = await loadRouteCatalog();
}, 120_000);

afterAll(async () => {
  installRunQueue(undefined);
  await t.drop();
});

interface HostileRequest {
  what: string;
  method: string;
  params: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: string;
}

interface Finding {
  request: string;
  problem: string;
}

/** The credential a route needs: a token of its role, or the admin's session for the instance's own routes (tokens never reach those). */
function credentialFor(route: CatalogRoute): Record<string, string> {
  const role = route.schemas.role;
  if (role === null) return {};
  if (role === "instance") return { cookie: `${SESSION_COOKIE}=${world.adminSession}`, origin: "http://localhost" };
  return { authorization: `Bearer ${world.tokens[role === "ingest" ? "operator" : role]}` };
}

/** fast-check's arbitrary of hostile requests for one route. */
function requestsFor(route: CatalogRoute): fc.Arbitrary<HostileRequest> {
  const key = `${route.method} ${route.template}`;
  const exampleBody = exampleBodies(world)[key];
  const exampleQuery = exampleQueries(world)[key] ?? {};
  const params = Object.fromEntries(route.params.map((p) => [p, existingParams(route.template, route.method, world)[p]]));
  const base = (): HostileRequest => ({
    what: "",
    method: route.method,
    params: { ...params },
    query: { ...exampleQuery },
    headers: { "content-type": "application/json", ...credentialFor(route), "x-hookplane-agent": world.ids.agent },
    body: route.schemas.body ? toJsonText(exampleBody ?? {}) : undefined,
  });
  const kinds: fc.WeightedArbitrary<HostileRequest>[] = [];
  const hasBody = Boolean(route.schemas.body);
  if (hasBody) {
    kinds.push({ weight: 5, arbitrary: mutatedBody(route.schemas.body, exampleBody).map(({ path, body }) => ({ ...base(), what: `body.${path}`, body: toJsonText(body) })) });
    kinds.push({
      weight: 2,
      arbitrary: fc.tuple(hostileRawBody, hostileContentType).map(([body, type]) => ({ ...base(), what: `raw body (${type})`, body, headers: { ...base().headers, "content-type": type } })),
    });
    // A hostile key anywhere in the example (keys are text too).
    kinds.push({
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom(...leafPaths(exampleBody ?? { a: 1 })), hostileText).map(([path, key]) => {
        const parent = path.slice(0, -1);
        const holder = parent.reduce<unknown>((node, k) => (node as Record<string, unknown>)?.[k], exampleBody ?? {});
        const withKey = holder && typeof holder === "object" && !Array.isArray(holder) ? { ...holder, [key]: "x" } : holder;
        return { ...base(), what: `key at ${parent.join(".") || "(root)"}`, body: toJsonText(withValueAt(exampleBody ?? {}, parent, withKey)) };
      }),
    });
  }
  // A route without a query schema ignores its query, so it gets a few; one with a schema, many.
  const declared = schemaKeys(route.schemas.query);
  const queryKeys = [...new Set([...declared, ...Object.keys(exampleQuery), ...(declared.length ? [] : ["q", "cursor"])])];
  kinds.push({
    weight: declared.length ? 6 : 1,
    arbitrary: fc
      .constantFrom(...queryKeys)
      .chain((k) => hostileQueryValue(k).map((v) => [k, v] as const))
      .map(([k, v]) => ({ ...base(), what: `query.${k}`, query: { ...exampleQuery, [k]: v } })),
  });
  if (declared.includes("cursor")) {
    kinds.push({ weight: 2, arbitrary: forgedCursor.map((cursor) => ({ ...base(), what: "query.cursor (forged)", query: { ...exampleQuery, cursor } })) });
  }
  if (route.params.length) {
    kinds.push({
      weight: 4,
      arbitrary: fc.tuple(fc.constantFrom(...route.params), hostileId).map(([p, id]) => ({ ...base(), what: `params.${p}`, params: { ...params, [p]: id } })),
    });
  }
  kinds.push({
    weight: 1,
    arbitrary: fc
      .constantFrom<Record<string, string>>(
        { cookie: `${SESSION_COOKIE}=%E0%A4%A` },
        { cookie: `${SESSION_COOKIE}=${"%".repeat(100)}` },
        { cookie: `${SESSION_COOKIE}=%00` },
        { authorization: "Bearer " },
        { authorization: "Bearer hp_" + "x".repeat(4000) },
        { authorization: "Basic YWRtaW46YWRtaW4=" },
        {},
      )
      .map((auth) => {
        const { authorization: _drop, ...rest } = base().headers;
        return { ...base(), what: `auth ${Object.keys(auth).join(",") || "none"}`, headers: { ...rest, ...auth } };
      }),
  });
  return fc.oneof(...kinds);
}

async function send(route: CatalogRoute, request: HostileRequest): Promise<{ status: number; text: string } | { thrown: unknown }> {
  const url = new URL(`http://localhost${route.template}`);
  for (const [k, v] of Object.entries(request.query)) url.searchParams.set(k, v);
  try {
    const response = await route.handler(
      new Request(url, { method: request.method, headers: request.headers, body: request.method === "GET" ? undefined : request.body }),
      { params: Promise.resolve(request.params) },
    );
    return { status: response.status, text: await response.text() };
  } catch (thrown) {
    return { thrown };
  }
}

function describeRequest(route: CatalogRoute, request: HostileRequest): string {
  const sample = (request.what.startsWith("raw") ? request.body : JSON.stringify(request.query))?.slice(0, 120);
  return `${route.method} ${route.template} [${request.what}] ${sample ?? ""}`;
}

describe("every route under app/api/v1", () => {
  test(`${RUNS} hostile requests: no 5xx, no dropped answer, nothing written by a failed request (seed ${SEED})`, async () => {
    expect(routes.length).toBeGreaterThan(30);
    const findings: Finding[] = [];
    const tally = { requests: 0, byStatus: {} as Record<number, number>, serverErrors: 0, dropped: 0, writtenByFailed: 0 };
    const perRoute = Math.max(3, Math.ceil(RUNS / routes.length));
    let before = await snapshotDatabase(t);
    for (const [index, route] of routes.entries()) {
      const requests = fc.sample(requestsFor(route), { numRuns: perRoute, seed: SEED + index });
      for (const request of requests) {
        tally.requests++;
        const answer = await send(route, request);
        const label = describeRequest(route, request);
        const after = await snapshotDatabase(t);
        if ("thrown" in answer) {
          tally.dropped++;
          findings.push({ request: label, problem: `handler threw: ${String(answer.thrown)}` });
        } else {
          tally.byStatus[answer.status] = (tally.byStatus[answer.status] ?? 0) + 1;
          if (answer.status >= 500) {
            tally.serverErrors++;
            findings.push({ request: label, problem: `${answer.status}: ${answer.text.slice(0, 200)}` });
          }
          if (answer.status >= 400) {
            let code: unknown;
            try {
              code = JSON.parse(answer.text).error?.code;
            } catch {}
            if (typeof code !== "string") findings.push({ request: label, problem: `error without api.md's shape: ${answer.text.slice(0, 120)}` });
            if (LEAK.test(answer.text)) findings.push({ request: label, problem: `error leaks internals: ${answer.text.slice(0, 200)}` });
          }
          if (answer.status >= 300) {
            const changed = snapshotChanges(before, after);
            if (changed.length > 0) {
              tally.writtenByFailed++;
              findings.push({ request: label, problem: `answered ${answer.status} but wrote ${changed.join(", ")}` });
            }
          }
        }
        before = after;
      }
    }
    console.info(`hostile routes (seed ${SEED}): ${JSON.stringify(tally)}`);
    expect(findings).toEqual([]);
  }, 1_800_000);
});

/** Example forms of the actions that take (previousState, FormData). */
function exampleForms(): Record<string, Record<string, string>> {
  const hook = { id: "fuzz-form", scope: "global", event: "tool.pre", matcher: "^fuzz-none$", action: { type: "block", reason: "r" } };
  return {
    saveAgentAction: { name: "form-agent", description: "d", model: "scripted", maxTurns: "3", timeoutMs: "60000", script: '[{"text":"hi"}]', tools: "memory" },
    deleteAgentAction: { id: "no-such-agent" },
    setupAction: { email: "x@example.com", password: "password123" },
    signInAction: { email: "admin@example.com", password: "wrong-password", next: "/agents" },
    saveHookAction: { spec: JSON.stringify(hook), hookId: "", version: "1" },
    deleteHookAction: { id: "00000000-0000-4000-8000-000000000000" },
    startRunAction: { agent: world.ids.agent, prompt: "p" },
    cancelRunAction: { id: "00000000-0000-4000-8000-000000000000" },
    decideApprovalAction: { id: world.ids.approval, decision: "deny", reason: "r" },
    createAlertRuleAction: { name: "form-alert", kind: "cost", agent: "", windowMinutes: "60", threshold: "5", cooldownMinutes: "60", targets: "[]", enabled: "" },
    updateAlertRuleAction: { id: "00000000-0000-4000-8000-000000000000", name: "form-alert", kind: "runs_blocked", windowMinutes: "30", threshold: "1", cooldownMinutes: "60", targets: "[]" },
    deleteAlertRuleAction: { id: "00000000-0000-4000-8000-000000000000" },
    createScheduleAction: { agent: world.ids.agent, name: "n", timing: "interval", intervalMs: "60000", prompt: "p" },
    deleteScheduleAction: { id: "00000000-0000-4000-8000-000000000000" },
    setSecretAction: { name: "FORM_SECRET", value: "v", hosts: "api.example.com, *.slack.com" },
    deleteSecretAction: { name: "NO_SUCH_SECRET" },
    createTokenAction: { name: "t", role: "viewer" },
    revokeTokenAction: { id: "00000000-0000-4000-8000-000000000000" },
    createUserAction: { email: "form@example.com", password: "password123", role: "viewer" },
    changeUserRoleAction: { id: world.ids.user, role: "operator" },
    createProviderAction: { name: "Form IdP", issuer: "https://idp.example.org", clientId: "c", clientSecret: "s", scopes: "openid email", groupsClaim: "groups", roleMappings: "eng = operator", defaultRole: "", createUsers: "on" },
    updateProviderAction: { id: world.ids.provider, name: "Fuzz IdP", issuer: "https://idp.example.com", clientId: "fuzz", clientSecret: "", scopes: "openid", groupsClaim: "groups", roleMappings: "", defaultRole: "viewer" },
    deleteProviderAction: { id: "00000000-0000-4000-8000-000000000000" },
    setPasswordSignInAction: { passwordSignIn: "on" },
  };
}

/** Example inputs of the actions that take one object. */
function exampleInputs(): Record<string, Record<string, unknown>> {
  return {
    setHookEnabledAction: { id: world.ids.hook, enabled: true },
    moveHookAction: { id: world.ids.hook, direction: "up", visibleIds: [world.ids.hook] },
    restoreHookVersionAction: { id: world.ids.hook, version: 1 },
    setKillSwitchAction: { enabled: false },
  };
}


function hostileFormFor(example: Record<string, string>): fc.Arbitrary<{ what: string; form: FormData }> {
  const keys = [...Object.keys(example), "id", "extra"];
  return fc.tuple(fc.constantFrom(...keys), fc.oneof(hostileText, hostileValue.map((v) => toJsonText(v))), fc.boolean()).map(([key, value, asFile]) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(example)) if (k !== key) form.append(k, v);
    form.append(key, asFile ? new File([value], value.slice(0, 20) || "f") : value);
    return { what: `${key}${asFile ? " (file)" : ""}`, form };
  });
}

describe("every server action", () => {
  test(`hostile forms and inputs: no "something went wrong", nothing written by a refused action (seed ${SEED})`, async () => {
    const actions = await loadServerActions();
    expect(actions.length).toBeGreaterThan(15);
    const forms = exampleForms();
    const inputs = exampleInputs();
    const perAction = Math.max(3, Math.ceil(RUNS / 3 / actions.length));
    const findings: Finding[] = [];
    const tally = { calls: 0, refused: 0, succeeded: 0 };
    const cookies = fc.constantFrom<string | undefined>(world.adminSession, world.adminSession, world.adminSession, undefined, "%E0%A4%A", "\u0000", "x".repeat(5000));
    let before = await snapshotDatabase(t);
    for (const [index, [name, action]] of actions.entries()) {
      const calls =
        action.length >= 2
          ? fc.sample(fc.tuple(hostileFormFor(forms[name] ?? { field: "x" }), cookies), { numRuns: perAction, seed: SEED + index }).map(([f, c]) => ({ what: f.what, args: [{}, f.form], cookie: c }))
          : action.length === 1
            ? fc
                .sample(fc.tuple(mutatedBody(undefined, inputs[name] ?? { field: "x" }), cookies), { numRuns: perAction, seed: SEED + index })
                .map(([m, c]) => ({ what: m.path, args: [m.body], cookie: c }))
            : // signOutAction: only with sessions that are not the suite's own.
              fc.sample(fc.constantFrom(undefined, "%E0%A4%A", "not-a-session"), { numRuns: 3, seed: SEED }).map((c) => ({ what: "sign out", args: [], cookie: c }));
      for (const call of calls) {
        tally.calls++;
        jar.session = call.cookie;
        const label = `${name} [${call.what}] cookie=${String(call.cookie).slice(0, 12)}`;
        let succeeded = false;
        try {
          const state = (await action(...call.args)) as { ok?: boolean; message?: string } | undefined;
          succeeded = state?.ok === true;
          if (state?.message?.startsWith("Something went wrong")) findings.push({ request: label, problem: `an error of ours: ${state.message}` });
        } catch (error) {
          const digest = String((error as { digest?: unknown }).digest ?? "");
          if (digest.startsWith("NEXT_REDIRECT")) succeeded = !digest.includes("/sign-in");
          else findings.push({ request: label, problem: `threw: ${String(error)}` });
        }
        const after = await snapshotDatabase(t);
        if (succeeded) tally.succeeded++;
        else {
          tally.refused++;
          // A refused sign-in may start a lockout, which is audited on purpose (issue 17): that row is the record, not a leak.
          const changed = snapshotChanges(before, after).filter((c) => !(label.startsWith("signInAction") && c.startsWith("audit_log")));
          if (changed.length > 0) findings.push({ request: label, problem: `refused but wrote ${changed.join(", ")}` });
        }
        before = after;
      }
    }
    jar.session = undefined;
    console.info(`hostile actions (seed ${SEED}): ${JSON.stringify(tally)}`);
    expect(findings).toEqual([]);
  }, 1_800_000);
});

describe("the cases the attack report named", () => {
  const route = (template: string, method: string) => routes.find((r) => r.template === template && r.method === method)!;
  const call = (template: string, method: string, init: { query?: Record<string, string>; body?: string; token?: string; params?: Record<string, string> }) =>
    send(route(template, method), {
      what: "",
      method,
      params: init.params ?? {},
      query: init.query ?? {},
      headers: { "content-type": "application/json", authorization: `Bearer ${init.token ?? world.tokens.admin}` },
      body: init.body,
    }) as Promise<{ status: number; text: string }>;

  test("a NUL in an ingested tool name is a 422 at its path, and no run is started", async () => {
    const before = await snapshotDatabase(t);
    const body = JSON.stringify({ agent: world.agentName, sessionId: "nul-session", event: { type: "tool.pre", data: { toolName: "Ba\u0000sh" } } });
    const answer = await call("/api/v1/ingest/events", "POST", { body, token: world.tokens.operator });
    expect(answer.status).toBe(422);
    expect(JSON.parse(answer.text).error.issues[0].path).toBe("event.data.toolName");
    expect(snapshotChanges(before, await snapshotDatabase(t))).toEqual([]);
  });

  test("a lone surrogate in an agent's description is a 422 naming the field, and no agent exists", async () => {
    const answer = await call("/api/v1/agents", "POST", { body: '{"name":"surrogate","description":"x\\ud800y"}', token: world.tokens.operator });
    expect(answer.status).toBe(422);
    expect(JSON.parse(answer.text).error.issues[0].path).toBe("description");
    const { rows } = await t.execute("select count(*)::int as n from agents where name = 'surrogate'", []);
    expect(rows[0].n).toBe(0);
  });

  test("JSON nested 10,000 levels is a 400, and the process goes on", async () => {
    const answer = await call("/api/v1/hooks/test", "POST", { body: "[".repeat(10_000) + "]".repeat(10_000), token: world.tokens.operator });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text).error.message).toMatch(/nested deeper/);
  });

  test("a forged cursor is a 422 at cursor, never a 500", async () => {
    for (const [template, cursor] of [
      ["/api/v1/runs", Buffer.from('{"createdAt":"not a date","id":"x"}').toString("base64url")],
      ["/api/v1/approvals", Buffer.from('{"at":"2025-01-01","id":"1) or (1=1"}').toString("base64url")],
      ["/api/v1/audit", Buffer.from('{"id":"1; drop table audit_log"}').toString("base64url")],
      ["/api/v1/agents", Buffer.from("[1,2]").toString("base64url")],
    ]) {
      const answer = await call(template, "GET", { query: { cursor } });
      expect(answer.status, template).toBe(422);
      expect(JSON.parse(answer.text).error.issues[0].path).toBe("cursor");
    }
  });

  test("an id that is not a UUID is a 404 naming it, not a 500", async () => {
    const answer = await call("/api/v1/tokens/[id]", "DELETE", { params: { id: "not-a-uuid" } });
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text).error.issues[0].path).toBe("id");
  });

  test("export filters out of range are refused before the download starts", async () => {
    for (const [template, query] of [
      ["/api/v1/runs/export", { from: "99999-01-01" }],
      ["/api/v1/ledger/export", { to: "99999-01-01" }],
      ["/api/v1/runs/export", { q: "\u0000" }],
    ] as const) {
      const answer = await call(template, "GET", { query: { ...query } });
      expect(answer.status, JSON.stringify(query)).toBe(422);
    }
  });

  test("the runs CSV carries a formula prompt as text a spreadsheet will not run", async () => {
    // Its own agent and run: the fuzz above may have deleted the world's.
    const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "csv-formula" }) }))!;
    await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "=cmd|' /C calc'!A0", source: "api" });
    const answer = await call("/api/v1/runs/export", "GET", { query: { format: "csv", agent: "csv-formula" } });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(`'=cmd|' /C calc'!A0`);
    expect(answer.text).not.toMatch(/(^|,)=cmd/m);
  });
});
