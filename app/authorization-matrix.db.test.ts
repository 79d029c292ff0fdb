/**
 * The two-project authorization matrix (issue 13): project A (the default project, the hostile
 * suite's world) and project B (its own admin, tokens of every role and its own agent, hook,
 * schedule, run, approval, secret and alert). Every route handler under app/api/v1 (found from the
 * file tree, so a new route is in the matrix the day it is added), every server action and every
 * WebSocket topic is called from B with A's ids, names and bodies, and:
 *
 * - nothing of A changes (a fingerprint of A's rows, their children and the instance's own rows);
 * - no answer carries anything of A the request did not itself send (ids, names, prompts);
 * - a request naming one of A's ids does not succeed (404, or 403 for what B's role may not do);
 * - B's tokens and sessions naming project A (header or path prefix) are refused outright.
 *
 * Runs on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { installDatabase } from "@/db/client";
import { DEFAULT_PROJECT_ID, type Role } from "@/db/schema";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { SESSION_COOKIE } from "@/lib/platform/auth/principal";
import { PROJECT_HEADER } from "@/lib/platform/auth/project-access";
import { loadRouteCatalog, type CatalogRoute } from "@/test/hostile/route-catalog";
import { buildHostileWorld, exampleBodies, exampleQueries, existingParams, type HostileWorld } from "@/test/hostile/route-fixtures";
import { buildProjectB, fingerprintProject, markersOf, type ProjectBWorld } from "@/test/hostile/project-matrix";
import { loadServerActions } from "@/test/hostile/server-actions";
import type { RunQueue } from "@/lib/features/runs/queue/run-queue";
import { installRunQueue } from "@/lib/features/runs/queue/run-queue-registry";

// The server actions run in-process: Next's request APIs become a cookie jar we control.
const jar = vi.hoisted(() => ({ session: undefined as string | undefined, project: undefined as string | undefined }));
vi.mock("server-only", () => ({}));
vi.mock("next/headers", () => ({
  cookies: async () => ({
    get: (name: string) => {
      const value = name === "hp_session" ? jar.session : name === "hp_project" ? jar.project : undefined;
      return value === undefined ? undefined : { name, value };
    },
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
  notFound: () => {
    throw Object.assign(new Error("NEXT_NOT_FOUND"), { digest: "NEXT_HTTP_ERROR_FALLBACK;404" });
  },
}));

let t: TestDatabase;
let a: HostileWorld;
let b: ProjectBWorld;
let routes: CatalogRoute[];
let markers: string[];

const fakeQueue: RunQueue = { enqueue: async () => {}, cancel: async () => {}, active: 0, sweeps: 0, stop: async () => {} };
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  installRunQueue(fakeQueue);
  a = await buildHostileWorld(t);
  b = await buildProjectB(t);
  routes = await loadRouteCatalog();
  markers = await markersOf(t, DEFAULT_PROJECT_ID);
}, 120_000);

afterAll(async () => {
  installRunQueue(undefined);
  await t.drop();
});

interface Call {
  route: CatalogRoute;
  params: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: string;
}

async function send(call: Call): Promise<{ status: number; text: string }> {
  const url = new URL(`http://localhost${call.route.template}`);
  for (const [k, v] of Object.entries(call.query)) url.searchParams.set(k, v);
  const response = await call.route.handler(
    new Request(url, { method: call.route.method, headers: call.headers, body: call.route.method === "GET" ? undefined : call.body }),
    { params: Promise.resolve(call.params) },
  );
  return { status: response.status, text: await response.text() };
}

/** B's credential for a route: the token of the role it needs; B's admin's session for instance routes. */
function credentialOfB(route: CatalogRoute): Record<string, string> {
  const role = route.schemas.role;
  if (role === null) return {};
  if (role === "instance") return { cookie: `${SESSION_COOKIE}=${b.adminSession}`, origin: "http://localhost" };
  return { authorization: `Bearer ${b.tokens[role === "ingest" ? "operator" : (role as Role)]}` };
}

function callFromB(route: CatalogRoute, extraHeaders: Record<string, string> = {}): Call {
  const key = `${route.method} ${route.template}`;
  const params = Object.fromEntries(route.params.map((p) => [p, existingParams(route.template, route.method, a)[p]]));
  const body = exampleBodies(a)[key];
  return {
    route,
    params,
    query: exampleQueries(a)[key] ?? {},
    headers: { "content-type": "application/json", "x-hookplane-agent": a.ids.agent, ...credentialOfB(route), ...extraHeaders },
    body: route.schemas.body ? JSON.stringify(body ?? {}) : undefined,
  };
}

/**
 * A's ids and names in an answer that the request did not send itself. A name B has made its own
 * meanwhile (names are unique per project: B may well have a secret called like one of A's) is B's.
 */
async function leaked(call: Call, text: string): Promise<string[]> {
  const sent = JSON.stringify([call.params, call.query, call.body ?? "", call.headers]);
  const own = new Set(await markersOf(t, b.projectId));
  return markers.filter((m) => text.includes(m) && !sent.includes(m) && !own.has(m));
}

/** The request's path, query or body names one of A's ids (the agent header is on every call, so not counted). */
function namesAnIdOfA(call: Call): boolean {
  const sent = JSON.stringify([call.params, call.query, call.body ?? ""]);
  return (sent.match(UUID) ?? []).some((id) => markers.includes(id));
}

describe("project B reaches nothing of project A", () => {
  test("every route and method, called by B with A's ids, names and bodies", async () => {
    expect(routes.length).toBeGreaterThan(40);
    const findings: string[] = [];
    const tally: Record<string, number> = {};
    let before = await fingerprintProject(t, DEFAULT_PROJECT_ID);
    for (const route of routes) {
      const call = callFromB(route);
      const label = `${route.method} ${route.template}`;
      const answer = await send(call);
      tally[answer.status] = (tally[answer.status] ?? 0) + 1;
      const after = await fingerprintProject(t, DEFAULT_PROJECT_ID);
      const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
      if (changed.length) findings.push(`${label} → ${answer.status} changed project A: ${changed.join(", ")}`);
      const leaks = await leaked(call, answer.text);
      if (leaks.length) findings.push(`${label} → ${answer.status} answered with A's ${leaks.slice(0, 3).join(", ")}`);
      if (answer.status >= 500) findings.push(`${label} → ${answer.status}: ${answer.text.slice(0, 160)}`);
      if (route.schemas.role === "instance" && answer.status !== 403) findings.push(`${label} → ${answer.status}: an instance route let B's admin in`);
      if (answer.status < 400 && namesAnIdOfA(call)) findings.push(`${label} → ${answer.status}: succeeded on one of A's ids`);
      before = after;
    }
    console.info(`authorization matrix, routes as B: ${JSON.stringify(tally)}`);
    expect(findings).toEqual([]);
  }, 600_000);

  test("B's tokens and B's admin naming project A are refused before anything is read", async () => {
    const findings: string[] = [];
    const before = await fingerprintProject(t, DEFAULT_PROJECT_ID);
    for (const route of routes) {
      const role = route.schemas.role;
      if (role === null || role === "instance") continue;
      const label = `${route.method} ${route.template}`;
      const byToken = await send(callFromB(route, { [PROJECT_HEADER]: "default" }));
      if (byToken.status !== 403) findings.push(`${label}: B's ${role} token naming project default → ${byToken.status}`);
      const session = callFromB(route, { [PROJECT_HEADER]: "default", cookie: `${SESSION_COOKIE}=${b.adminSession}`, origin: "http://localhost" });
      delete session.headers.authorization;
      const bySession = await send(session);
      if (bySession.status !== 404) findings.push(`${label}: B's admin naming project default → ${bySession.status}`);
      for (const answer of [byToken, bySession]) {
        const leaks = await leaked(session, answer.text);
        if (leaks.length) findings.push(`${label}: answered with A's ${leaks.slice(0, 3).join(", ")}`);
      }
    }
    expect(findings).toEqual([]);
    expect(await fingerprintProject(t, DEFAULT_PROJECT_ID)).toEqual(before);
  }, 600_000);

  test("every server action, called by B's admin with A's ids: refused, nothing of A changed", async () => {
    const actions = await loadServerActions();
    expect(actions.length).toBeGreaterThan(20);
    const inputs = b.actionInputsNaming(a);
    const findings: string[] = [];
    let before = await fingerprintProject(t, DEFAULT_PROJECT_ID);
    jar.session = b.adminSession;
    jar.project = undefined;
    try {
      for (const [name, run] of actions) {
        const input = inputs[name];
        if (!input) continue;
        // What B owns before the action (a delete may take B's own row of the same name).
        const own = new Set(await markersOf(t, b.projectId));
        let outcome: unknown;
        try {
          outcome = run.length >= 2 ? await run({}, toForm(input)) : await run(input);
        } catch (error) {
          outcome = { thrown: String(error) };
        }
        const after = await fingerprintProject(t, DEFAULT_PROJECT_ID);
        const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
        if (changed.length) findings.push(`${name} changed project A: ${changed.join(", ")}`);
        const text = JSON.stringify(outcome ?? null);
        const sent = JSON.stringify(input);
        const leaks = markers.filter((m) => text.includes(m) && !sent.includes(m) && !own.has(m));
        if (leaks.length) findings.push(`${name} answered with A's ${leaks.slice(0, 3).join(", ")}`);
        // Succeeding on a name B owns too is B's own business; on one of A's ids, never.
        const namesOnlyA = (sent.match(UUID) ?? []).some((id) => markers.includes(id)) || markers.some((m) => sent.includes(m) && !own.has(m));
        if ((outcome as { ok?: boolean })?.ok === true && namesOnlyA) findings.push(`${name} succeeded on A's ${sent.slice(0, 120)}`);
        before = after;
      }
    } finally {
      jar.session = undefined;
    }
    expect(findings).toEqual([]);
    expect(Object.keys(inputs).filter((name) => !actions.some(([n]) => n === name))).toEqual([]);
  }, 600_000);
});

function toForm(input: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(input)) form.append(k, typeof v === "string" ? v : JSON.stringify(v));
  return form;
}
