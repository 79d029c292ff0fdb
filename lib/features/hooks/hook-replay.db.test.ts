import { afterAll, beforeAll, expect, test } from "vitest";
import { startRun } from "@/lib/features/runs/run-service";
import { addAgent, createRunHarness, operator, waitForRun, type RunHarness } from "@/test/run-harness";
import * as samplesRoute from "@/app/api/v1/hooks/test/samples/route";
import { callRoute } from "@/test/api-client";
import { issueApiToken } from "@/lib/platform/auth/account-service";
import { replayHook } from "./hook-replay";
import { addPerson, addToken } from "@/test/people";
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
