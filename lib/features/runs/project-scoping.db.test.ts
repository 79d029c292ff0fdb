/**
 * Projects keep their runs domain apart: a token of project B reads, changes and lists nothing of
 * project A's agents, runs (and their events), schedules, prices, costs or memory notes (another
 * project's row answers 404, as one that does not exist), and a run is executed with its own
 * project's agents, prices and notes whichever worker runs it.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callRoute } from "@/test/api-client";
import { DEFAULT_PROJECT_ID, addPersonToken, addProject, addToken } from "@/test/people";
import { addAgent, createRunHarness, personIn, waitForRun, type RunHarness } from "@/test/run-harness";
import { createRun } from "@/db/queries/runs";
import { createSchedule } from "@/db/queries/schedules";
import { appendMemoryNote } from "@/db/queries/memory-notes";
import { fireDueSchedules } from "@/lib/features/schedules/scheduler";
import { startRun } from "./run-service";
import * as agentsRoute from "@/app/api/v1/agents/route";
import * as agentRoute from "@/app/api/v1/agents/[id]/route";
import * as runsRoute from "@/app/api/v1/runs/route";
import * as runRoute from "@/app/api/v1/runs/[id]/route";
import * as runEventsRoute from "@/app/api/v1/runs/[id]/events/route";
import * as runHooksRoute from "@/app/api/v1/runs/[id]/hooks/route";
import * as runCancelRoute from "@/app/api/v1/runs/[id]/cancel/route";
import * as runExportRoute from "@/app/api/v1/runs/export/route";
import * as schedulesRoute from "@/app/api/v1/schedules/route";
import * as scheduleRoute from "@/app/api/v1/schedules/[id]/route";
import * as costsRoute from "@/app/api/v1/costs/route";
import * as pricesRoute from "@/app/api/v1/prices/route";
import * as ingestRoute from "@/app/api/v1/ingest/events/route";

let h: RunHarness;
let project: { id: string; slug: string };
/** Tokens of project A (the default project) and project B. */
const a = { admin: "", operator: "" };
const b = { admin: "", operator: "", viewer: "" };
let agentA: { id: string; name: string };
let agentB: { id: string; name: string };
let runA: { id: string; costUsd: number };
let scheduleA: { id: string };

const rowsOf = async (sql: string) => (await h.t.execute(sql)).rows;
const snapshot = () =>
  Promise.all([
    rowsOf("select * from agents order by id"),
    rowsOf("select id, project_id, status, cancel_requested, outcome from runs order by id"),
    rowsOf("select * from schedules order by id"),
    rowsOf("select project_id, model_pattern, input_usd_per_m from model_prices order by project_id, model_pattern"),
    rowsOf("select count(*)::int as n from run_events"),
  ]);

beforeAll(async () => {
  h = await createRunHarness();
  project = await addProject(h.t.db, { slug: "team-b" });
  a.admin = (await addToken(h.t.db, { role: "admin" })).token;
  a.operator = (await addToken(h.t.db, { role: "operator" })).token;
  b.admin = (await addToken(h.t.db, { role: "admin", projectId: project.id })).token;
  b.operator = (await addToken(h.t.db, { role: "operator", projectId: project.id })).token;
  b.viewer = (await addToken(h.t.db, { role: "viewer", projectId: project.id })).token;
  agentA = await addAgent(h.t, { name: "shared-name", script: [{ text: "a done", usage: { inputTokens: 1000, outputTokens: 100 } }] });
  agentB = await addAgent(h.t, { name: "only-b", script: [{ text: "b done", usage: { inputTokens: 1000, outputTokens: 100 } }] }, [], project.id);
  const started = await startRun(h.t.db, personIn("operator"), { agent: agentA.name, prompt: "a's secret prompt" });
  runA = await waitForRun(h.t, started.id, (r) => r.status === "finished");
  scheduleA = await createSchedule(h.t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agentA.id, prompt: "nightly", intervalMs: 60_000, enabled: false });
}, 60_000);
afterAll(() => h.close());

describe("another project's agents, runs and schedules are not there", () => {
  test("reads of project A's rows by id or name answer 404 to project B", async () => {
    for (const ref of [agentA.id, agentA.name]) {
      expect((await callRoute(agentRoute.GET, { token: b.viewer, params: { id: ref } })).status).toBe(404);
    }
    expect((await callRoute(agentRoute.GET, { token: a.operator, params: { id: agentA.name } })).status).toBe(200);
    for (const route of [runRoute.GET, runEventsRoute.GET, runHooksRoute.GET]) {
      expect((await callRoute(route, { token: b.viewer, params: { id: runA.id } })).status).toBe(404);
      expect((await callRoute(route, { token: a.operator, params: { id: runA.id } })).status).toBe(200);
    }
    expect((await callRoute(scheduleRoute.GET, { token: b.viewer, params: { id: scheduleA.id } })).status).toBe(404);
    expect((await callRoute(scheduleRoute.GET, { token: a.operator, params: { id: scheduleA.id } })).status).toBe(200);
    // Naming A's agent in a filter is an unknown agent, not an empty list.
    expect((await callRoute(runsRoute.GET, { token: b.viewer, path: `/?agent=${agentA.name}` })).status).toBe(404);
  });

  test("lists hold only the project's own rows", async () => {
    const agentNames = (token: string) => callRoute(agentsRoute.GET, { token }).then((r) => r.body.items.map((i: { name: string }) => i.name));
    expect(await agentNames(b.viewer)).toEqual(["only-b"]);
    expect(await agentNames(a.operator)).toEqual(["shared-name"]);
    expect((await callRoute(runsRoute.GET, { token: b.viewer })).body.items).toEqual([]);
    expect((await callRoute(runsRoute.GET, { token: a.operator })).body.items.map((r: { id: string }) => r.id)).toEqual([runA.id]);
    expect((await callRoute(schedulesRoute.GET, { token: b.viewer })).body.items).toEqual([]);
    expect((await callRoute(schedulesRoute.GET, { token: a.operator })).body.items.map((s: { id: string }) => s.id)).toEqual([scheduleA.id]);
    const request = new Request("http://localhost/?format=csv", { headers: { authorization: `Bearer ${b.viewer}` } });
    const csv = await (await runExportRoute.GET(request, { params: Promise.resolve({}) })).text();
    expect(csv).not.toContain(runA.id);
    expect(csv).not.toContain("secret prompt");
  });

  test("writes to project A's rows answer 404 to project B and change nothing", async () => {
    const before = await snapshot();
    expect((await callRoute(agentRoute.PATCH, { method: "PATCH", token: b.admin, params: { id: agentA.id }, body: { description: "mine now" } })).status).toBe(404);
    expect((await callRoute(agentRoute.DELETE, { method: "DELETE", token: b.admin, params: { id: agentA.name } })).status).toBe(404);
    expect((await callRoute(runCancelRoute.POST, { method: "POST", token: b.admin, params: { id: runA.id } })).status).toBe(404);
    expect((await callRoute(runRoute.DELETE, { method: "DELETE", token: b.admin, params: { id: runA.id } })).status).toBe(404);
    expect((await callRoute(scheduleRoute.DELETE, { method: "DELETE", token: b.admin, params: { id: scheduleA.id } })).status).toBe(404);
    // Starting a run of A's agent, or scheduling one, from B: there is no such agent in B.
    expect((await callRoute(runsRoute.POST, { method: "POST", token: b.operator, body: { agent: agentA.id, prompt: "x" } })).status).toBe(404);
    expect((await callRoute(schedulesRoute.POST, { method: "POST", token: b.operator, body: { agent: agentA.name, prompt: "x", intervalMs: 60_000 } })).status).toBe(404);
    expect(await snapshot()).toEqual(before);
    expect(await rowsOf("select action from audit_log where project_id is distinct from '" + DEFAULT_PROJECT_ID + "'")).toEqual([]);
  });

  test("an agent name is unique in its project only", async () => {
    const created = await callRoute(agentsRoute.POST, { method: "POST", token: b.operator, body: { name: "shared-name" } });
    expect(created.status).toBe(201);
    expect(await rowsOf("select name, project_id from agents where name = 'shared-name' order by project_id = '" + DEFAULT_PROJECT_ID + "'")).toEqual([
      { name: "shared-name", project_id: project.id },
      { name: "shared-name", project_id: DEFAULT_PROJECT_ID },
    ]);
    const again = await callRoute(agentsRoute.POST, { method: "POST", token: b.operator, body: { name: "shared-name" } });
    expect(again.status).toBe(409);
    // B's name now names B's agent: reads, filters and runs find that one, never A's.
    const read = await callRoute(agentRoute.GET, { token: b.viewer, params: { id: "shared-name" } });
    expect(read.body.id).toBe(created.body.id);
    const { rows } = await h.t.execute("select audit_log.project_id from audit_log where action = 'agent.create'");
    expect(rows).toEqual([{ project_id: project.id }]);
  });

  test("a run refuses an agent of another project at the database too", async () => {
    await expect(createRun(h.t.db, { projectId: project.id, agentId: agentA.id, prompt: "x", source: "api" })).rejects.toThrow();
    expect(await rowsOf(`select count(*)::int as n from runs where project_id = '${project.id}' and agent_id = '${agentA.id}'`)).toEqual([{ n: 0 }]);
  });
});

describe("prices, costs and memory are the run's project's", () => {
  test("project B's price override prices B's runs; A's runs keep A's prices", async () => {
    const put = await callRoute(pricesRoute.PUT, {
      method: "PUT",
      token: b.admin,
      body: { items: [{ modelPattern: "^scripted$", inputUsdPerM: 100, outputUsdPerM: 200, effectiveFrom: "2020-01-01T00:00:00Z" }] },
    });
    expect(put.status).toBe(200);
    expect((await callRoute(pricesRoute.GET, { token: b.viewer })).body.items.map((p: { inputUsdPerM: number }) => p.inputUsdPerM)).toEqual([100]);
    // A's table (the seeded catalogue) is as it was.
    const aPrices = (await callRoute(pricesRoute.GET, { token: a.operator })).body.items;
    expect(aPrices.find((p: { modelPattern: string }) => p.modelPattern === "^scripted$")).toMatchObject({ inputUsdPerM: 1, outputUsdPerM: 2 });

    const started = await startRun(h.t.db, personIn("operator", project), { agent: agentB.name, prompt: "go" });
    expect(started.projectId).toBe(project.id);
    const done = await waitForRun(h.t, started.id, (r) => r.status === "finished");
    expect(done.costUsd).toBeCloseTo((1000 * 100 + 100 * 200) / 1e6, 12);
    expect(runA).toMatchObject({ costUsd: (1000 * 1 + 100 * 2) / 1e6 });
  });

  test("a project with no override prices with the built-in catalogue", async () => {
    const c = await addProject(h.t.db, { slug: "team-c" });
    const agent = await addAgent(h.t, { name: "c-agent", script: [{ text: "c", usage: { inputTokens: 1000, outputTokens: 100 } }] }, [], c.id);
    const started = await startRun(h.t.db, personIn("operator", c), { agent: agent.name, prompt: "go" });
    const done = await waitForRun(h.t, started.id, (r) => r.status === "finished");
    expect(done.costUsd).toBeCloseTo((1000 * 1 + 100 * 2) / 1e6, 12);
  });

  test("costs count the project's runs and agents only", async () => {
    const costsOf = async (token: string) => (await callRoute(costsRoute.GET, { token })).body;
    const ofB = await costsOf(b.viewer);
    expect(ofB.byAgent.map((r: { agentName: string }) => r.agentName)).toEqual(["only-b"]);
    expect(ofB.topRuns.map((r: { id: string }) => r.id)).not.toContain(runA.id);
    expect(ofB.budgets.map((r: { agentName: string }) => r.agentName).sort()).toEqual(["only-b", "shared-name"]);
    expect(ofB.budgets.map((r: { agentId: string }) => r.agentId)).not.toContain(agentA.id);
    expect(ofB.byModel).toEqual([expect.objectContaining({ model: "scripted", calls: 1 })]);
    const ofA = await costsOf(a.operator);
    expect(ofA.byAgent.map((r: { agentName: string }) => r.agentName)).toEqual(["shared-name"]);
    expect(ofA.byAgent[0].costUsd).toBeCloseTo(runA.costUsd, 12);
  });

  test("the memory tool reads and writes its run's project's notes", async () => {
    await appendMemoryNote(h.t.db, { projectId: DEFAULT_PROJECT_ID, name: "notes.md", text: "a's note" });
    const remember = await addAgent(
      h.t,
      {
        name: "remembers",
        tools: ["memory"],
        script: [
          { text: "reading", toolCalls: [{ name: "memory", input: { action: "read", file: "notes.md" } }] },
          { text: "writing", toolCalls: [{ name: "memory", input: { action: "append", file: "notes.md", text: "b's note" } }] },
          { text: "done" },
        ],
      },
      [],
      project.id,
    );
    const started = await startRun(h.t.db, personIn("operator", project), { agent: remember.name, prompt: "go" });
    await waitForRun(h.t, started.id, (r) => r.status === "finished");
    expect(await rowsOf("select project_id, name, content from memory_notes order by content")).toEqual([
      { project_id: DEFAULT_PROJECT_ID, name: "notes.md", content: "a's note" },
      { project_id: project.id, name: "notes.md", content: "b's note" },
    ]);
    // What B's run read was B's (empty) note, not A's.
    const { rows } = await h.t.execute(`select data from run_events where run_id = '${started.id}' and type = 'tool.post' order by seq limit 1`);
    expect(JSON.stringify(rows[0])).not.toContain("a's note");
  });
});

describe("background work takes the project from the row", () => {
  test("a due schedule of project B fires a run in project B", async () => {
    const schedule = await createSchedule(h.t.db, {
      projectId: project.id,
      agentId: agentB.id,
      prompt: "tick",
      intervalMs: 60_000,
      enabled: true,
      nextRunAt: new Date(Date.now() - 1000),
    });
    const fired: string[] = [];
    expect(await fireDueSchedules(h.t.db, async (id) => void fired.push(id))).toBeGreaterThanOrEqual(1);
    const { rows } = await h.t.execute(`select project_id, agent_id from runs where schedule_id = '${schedule.id}'`);
    expect(rows).toEqual([{ project_id: project.id, agent_id: agentB.id }]);
  });
});

describe("ingest: the token's project decides whose agent a session is", () => {
  const event = (agent: string, sessionId: string) => ({ agent, sessionId, source: "ingest", event: { type: "session.start", data: {} } });
  // Hook events come from someone: an operator of each project, each with a token of their own.
  const senders = { a: "", b: "" };
  beforeAll(async () => {
    senders.a = (await addPersonToken(h.t.db, { role: "operator", name: "sender-a" })).token;
    senders.b = (await addPersonToken(h.t.db, { role: "operator", name: "sender-b", projectId: project.id })).token;
  });

  test("project B's token naming A's agent finds no agent and starts no run", async () => {
    const before = await rowsOf("select id from runs order by id");
    const res = await callRoute(ingestRoute.POST, { method: "POST", token: senders.b, body: event("remembers-not", "s-1") });
    expect(res.status).toBe(404);
    const byId = await callRoute(ingestRoute.POST, { method: "POST", token: senders.b, body: event(agentA.id, "s-1") });
    expect(byId.status).toBe(404);
    expect(await rowsOf("select id from runs order by id")).toEqual(before);
  });

  test("a name both projects use lands in the token's project", async () => {
    const ofA = await callRoute(ingestRoute.POST, { method: "POST", token: senders.a, body: event("shared-name", "s-2") });
    const ofB = await callRoute(ingestRoute.POST, { method: "POST", token: senders.b, body: event("shared-name", "s-2") });
    expect([ofA.status, ofB.status]).toEqual([200, 200]);
    expect(ofA.body.runId).not.toBe(ofB.body.runId);
    const { rows } = await h.t.execute(
      `select r.id, r.project_id, a.project_id as agent_project from runs r join agents a on a.id = r.agent_id where r.external_session_id = 's-2' order by r.project_id = '${DEFAULT_PROJECT_ID}'`,
    );
    expect(rows).toEqual([
      { id: ofB.body.runId, project_id: project.id, agent_project: project.id },
      { id: ofA.body.runId, project_id: DEFAULT_PROJECT_ID, agent_project: DEFAULT_PROJECT_ID },
    ]);
    // And B cannot read A's session run.
    expect((await callRoute(runRoute.GET, { token: b.viewer, params: { id: ofA.body.runId } })).status).toBe(404);
  });
});
