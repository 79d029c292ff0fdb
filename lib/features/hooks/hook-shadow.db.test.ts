/**
 * The hook page's shadow record: what a shadow hook recorded on live runs (counts, newest rows
 * linked to the run at the event), nothing for an enforcing hook's rows, and never another
 * project's rows of a hook with the same key.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { startRun } from "@/lib/features/runs/run-service";
import { addAgent, createRunHarness, operator, personIn, waitForRun, type RunHarness } from "@/test/run-harness";
import { addProject, DEFAULT_PROJECT_ID } from "@/test/people";
import { loadShadowRecord } from "./hook-shadow";

let h: RunHarness;
let scope: string;
let scopeB: string;
let projectB: string;

const writeTurn = (path: string) => ({ toolCalls: [{ name: "write_file", input: { path, content: "x" } }] });
const shadowGuard = { id: "no-prod", event: "tool.pre", mode: "shadow", matcher: "write_file", action: { type: "block", reason: "no prod", denyIf: "/srv/prod" } } as const;

beforeAll(async () => {
  h = await createRunHarness();
  const agent = await addAgent(h.t, { name: "writer", tools: ["write_file"], script: [writeTurn("/srv/prod/a.yml"), writeTurn("notes.md"), { text: "done" }] }, [shadowGuard]);
  scope = `agent:${agent.id}`;
  const run = await startRun(h.t.db, operator, { agent: "writer", prompt: "go" });
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  // Another project: the same hook key, in shadow too, over its own run.
  projectB = (await addProject(h.t.db, { slug: "other" })).id;
  const agentB = await addAgent(h.t, { name: "writer-b", tools: ["write_file"], script: [writeTurn("/srv/prod/b.yml"), { text: "done" }] }, [shadowGuard], projectB);
  scopeB = `agent:${agentB.id}`;
  const runB = await startRun(h.t.db, personIn("operator", { id: projectB, slug: "other" }, "ops-b@example.com"), { agent: "writer-b", prompt: "go" });
  await waitForRun(h.t, runB.id, (r) => r.status === "finished");
});
afterAll(async () => {
  await h.close();
});

test("counts what the shadow hook fired on and would have blocked, its newest rows linked to the run at the event", async () => {
  const record = await loadShadowRecord(h.t.db, { projectId: DEFAULT_PROJECT_ID, hook: { key: "no-prod", scope } });
  expect(record).toMatchObject({ fired: 2, wouldBlock: 1, failed: 0, runs: 1 });
  expect(record.latest).toHaveLength(2);
  const blocked = record.latest.find((r) => r.verdict === "block")!;
  expect(blocked).toMatchObject({ agentName: "writer", toolName: "write_file", reason: "no prod" });
  expect(blocked.runPath).toMatch(/^\/runs\/[0-9a-f-]+#event-\d+$/);
  // The run went on: the shadow block was recorded, not enforced.
  expect(JSON.stringify(record)).not.toContain("writer-b");
});

test("another project's rows are not this hook's; a key in another scope is another hook", async () => {
  expect(await loadShadowRecord(h.t.db, { projectId: DEFAULT_PROJECT_ID, hook: { key: "no-prod", scope: scopeB } })).toMatchObject({ fired: 0, latest: [] });
  expect(await loadShadowRecord(h.t.db, { projectId: projectB, hook: { key: "no-prod", scope: scopeB } })).toMatchObject({ fired: 1, wouldBlock: 1 });
  expect(await loadShadowRecord(h.t.db, { projectId: DEFAULT_PROJECT_ID, hook: { key: "other-hook", scope } })).toMatchObject({ fired: 0, wouldBlock: 0, latest: [] });
});
