import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startRun } from "@/lib/features/runs/run-service";
import { addAgent, createRunHarness, operator, personIn, waitForRun, type RunHarness } from "@/test/run-harness";
import * as samplesRoute from "@/app/api/v1/hooks/test/samples/route";
import * as replayRoute from "@/app/api/v1/hooks/replay/route";
import { callRoute } from "@/test/api-client";
import { issueApiToken } from "@/lib/platform/auth/account-service";
import { replayHook } from "./hook-replay";
import { addPerson, addProject, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";

let h: RunHarness;
let token: string;

const writeTurn = (path: string) => ({ toolCalls: [{ name: "write_file", input: { path, content: "x" } }] });

beforeAll(async () => {
  h = await createRunHarness();
  await addPerson(h.t.db, { email: "a@example.com", instanceAdmin: true, passwordHash: await hashPassword("long enough") });
  token = (await addToken(h.t.db, { role: "operator", name: "ops" })).token;
  // Two past runs: one writes under /srv/prod (allowed then: no guard yet), one writes a note.
  await addAgent(h.t, { name: "writer", tools: ["write_file"], script: [writeTurn("/srv/prod/app.yml"), writeTurn("notes.md"), { text: "done" }] });
  for (const prompt of ["first", "second"]) {
    const run = await startRun(h.t.db, operator, { agent: "writer", prompt });
    await waitForRun(h.t, run.id, (r) => r.status === "finished");
  }
});
afterAll(async () => {
  await h.close();
});

test("recorded events are offered as samples to try a hook on", async () => {
  const res = await callRoute(samplesRoute.GET, { token, path: "/api/v1/hooks/test/samples?event=tool.pre&agent=writer" });
  expect(res.status).toBe(200);
  expect(res.body.items).toHaveLength(4);
  expect(res.body.items.map((s: { data: { toolInput: { path: string } } }) => s.data.toolInput.path)).toContain("/srv/prod/app.yml");
});

test("replaying a draft guard lists exactly the past calls it would have blocked", async () => {
  const result = await replayHook(h.t.db, operator, {
    hook: { id: "no-prod", event: "tool.pre", scope: "global", enabled: true, mode: "enforce", matcher: "write_file", action: { type: "block", reason: "no prod", denyIf: "/srv/prod" } },
    agent: "writer",
    runs: 10,
  });
  expect(result).toMatchObject({ runs: 2, events: 4 });
  expect(result.differences).toHaveLength(2);
  for (const d of result.differences) expect(d).toMatchObject({ toolName: "write_file", before: "allow", after: "block", reason: expect.stringContaining("no prod") });
});

test("a guard edited not to block shows its past blocks as allowed; a new hook beside a guard that blocked changes nothing", async () => {
  await addAgent(
    h.t,
    { name: "guarded-writer", tools: ["write_file"], script: [writeTurn("/srv/prod/app.yml"), { text: "ok" }] },
    [{ id: "no-prod", event: "tool.pre", action: { type: "block", reason: "no prod", denyIf: "/srv/prod" } }],
  );
  const run = await startRun(h.t.db, operator, { agent: "guarded-writer", prompt: "go" });
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  // The guard itself, edited to only log: the call it blocked would go through.
  const edited = await replayHook(h.t.db, operator, {
    hook: { id: "no-prod", event: "tool.pre", scope: "global", enabled: true, mode: "enforce", action: { type: "log" } },
    agent: "guarded-writer",
    runs: 5,
  });
  expect(edited.differences).toEqual([expect.objectContaining({ before: "block", after: "allow", blockedBefore: expect.stringContaining("no-prod") })]);
  // Another hook added beside it: the guard still blocks; nothing would go differently.
  const beside = await replayHook(h.t.db, operator, {
    hook: { id: "log-only", event: "tool.pre", scope: "global", enabled: true, mode: "enforce", action: { type: "log" } },
    agent: "guarded-writer",
    runs: 5,
  });
  expect(beside.differences).toEqual([]);
  // A second guard over the same call: already refused, so no change either.
  const second = await replayHook(h.t.db, operator, {
    hook: { id: "no-yaml", event: "tool.pre", scope: "global", enabled: true, mode: "enforce", action: { type: "block", reason: "no yaml", denyIf: "\\.yml" } },
    agent: "guarded-writer",
    runs: 5,
  });
  expect(second.differences).toEqual([]);
});

test("actions that reach outside do not replay", async () => {
  await expect(
    replayHook(h.t.db, operator, {
      hook: { id: "wh", event: "tool.pre", scope: "global", enabled: true, mode: "enforce", action: { type: "webhook", url: "https://example.com", method: "POST", headers: {} } },
      agent: "writer",
      runs: 5,
    }),
  ).rejects.toMatchObject({ status: 422 });
});

describe("replay across the project's agents", () => {
  let projectB: { id: string; slug: string };
  let tokenB: string;
  const noProdAll = { id: "no-prod-all", event: "tool.pre", scope: "global", enabled: true, mode: "enforce", matcher: "write_file", action: { type: "block", reason: "no prod", denyIf: "/srv/prod" } } as const;

  beforeAll(async () => {
    // A second agent of this project, and another project whose agent writes under /srv/prod too.
    await addAgent(h.t, { name: "deployer", tools: ["write_file"], script: [writeTurn("/srv/prod/deploy.yml"), { text: "done" }] });
    const run = await startRun(h.t.db, operator, { agent: "deployer", prompt: "deploy" });
    await waitForRun(h.t, run.id, (r) => r.status === "finished");
    projectB = await addProject(h.t.db, { slug: "elsewhere" });
    await addAgent(h.t, { name: "outsider", tools: ["write_file"], script: [writeTurn("/srv/prod/theirs.yml"), { text: "done" }] }, [], projectB.id);
    const theirs = await startRun(h.t.db, personIn("operator", projectB, "ops-b@example.com"), { agent: "outsider", prompt: "go" });
    await waitForRun(h.t, theirs.id, (r) => r.status === "finished");
    tokenB = (await addToken(h.t.db, { role: "operator", name: "ops-b", projectId: projectB.id })).token;
  });

  test("without an agent, every agent's runs of the project, each difference naming its agent and linking to the run at the event", async () => {
    const result = await replayHook(h.t.db, operator, { hook: noProdAll, runs: 50 });
    expect(result.agent).toBeNull();
    expect(result.agents.map((a) => [a.name, a.runs]).sort()).toEqual([["deployer", 1], ["guarded-writer", 1], ["writer", 2]]);
    // guarded-writer's call was refused by its own guard then: a second guard changes nothing there.
    expect(result.differences.map((d) => [d.agent.name, d.toolName, d.before, d.after]).sort()).toEqual([
      ["deployer", "write_file", "allow", "block"],
      ["writer", "write_file", "allow", "block"],
      ["writer", "write_file", "allow", "block"],
    ]);
    for (const d of result.differences) expect(d.runPath).toBe(`/runs/${d.runId}#event-${d.seq}`);
    // Another project's run is never read: its agent, its run, its call.
    expect(JSON.stringify(result)).not.toContain("outsider");
    expect(JSON.stringify(result)).not.toContain("theirs.yml");
  });

  test("the runs limit applies to the project's newest runs; the hook's own scope still narrows to its agent", async () => {
    const newest = await replayHook(h.t.db, operator, { hook: noProdAll, runs: 1 });
    expect(newest.runs).toBe(1);
    expect(newest.agents).toEqual([expect.objectContaining({ name: "deployer", runs: 1 })]);
    const scoped = await replayHook(h.t.db, operator, { hook: { ...noProdAll, scope: "agent:writer" }, runs: 50 });
    expect(scoped.agent).toBe("writer");
    expect(scoped.agents.map((a) => a.name)).toEqual(["writer"]);
    expect(scoped.differences.map((d) => d.agent.name)).toEqual(["writer", "writer"]);
  });

  test("POST /api/v1/hooks/replay: without agent, each project sees its own runs only; another project's agent is not found", async () => {
    const ours = await callRoute(replayRoute.POST, { method: "POST", token, body: { hook: noProdAll, runs: 50 } });
    expect(ours.status).toBe(200);
    expect(ours.body.differences.map((d: { agent: { name: string } }) => d.agent.name).sort()).toEqual(["deployer", "writer", "writer"]);
    const theirs = await callRoute(replayRoute.POST, { method: "POST", token: tokenB, body: { hook: noProdAll, runs: 50 } });
    expect(theirs.status).toBe(200);
    expect(theirs.body.agents.map((a: { name: string }) => a.name)).toEqual(["outsider"]);
    expect(theirs.body.differences).toEqual([expect.objectContaining({ agent: expect.objectContaining({ name: "outsider" }), runPath: expect.stringMatching(/^\/runs\/[0-9a-f-]+#event-\d+$/) })]);
    // From the wrong side: project A naming B's agent, by name or as the hook's scope.
    expect((await callRoute(replayRoute.POST, { method: "POST", token, body: { hook: noProdAll, agent: "outsider" } })).status).toBe(404);
    const scopedThere = await callRoute(replayRoute.POST, { method: "POST", token, body: { hook: { ...noProdAll, scope: "agent:outsider" } } });
    expect(scopedThere.status).toBe(422);
    expect(scopedThere.body.error.issues).toEqual([{ path: "scope", message: 'no agent has the id or name "outsider"' }]);
  });
});
