/**
 * GET /api/v1/runs/{id}/hooks in pages (the run view loads a long run's ledger this way, then
 * follows it on the stream): gapless by row id, each row once, a bad page named by its field, and
 * another project's run not found.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { appendRunRecords, type LedgerRowOfBatch } from "@/db/queries/run-events";
import { createRun } from "@/db/queries/runs";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addProject, addToken } from "@/test/people";
import * as runHooksRoute from "@/app/api/v1/runs/[id]/hooks/route";

let t: TestDatabase;
let viewer: string;
let stranger: string;
let runId: string;

const row = (hookKey: string, eventSeq: number): LedgerRowOfBatch => ({
  runId, projectId: DEFAULT_PROJECT_ID, eventSeq, event: "tool.pre", hookKey, scope: "global", matched: true, verdict: "allow",
  mode: "enforce", action: "block", ignored: false, failed: false, timedOut: false,
});

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  viewer = (await addToken(t.db, { role: "viewer" })).token;
  const other = await addProject(t.db, { slug: "ledger-pages-other" });
  stranger = (await addToken(t.db, { role: "admin", projectId: other.id })).token;
  const agent = await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name: "paged", model: "scripted", tools: [], maxTurns: 2, timeoutMs: 10_000 } });
  runId = (await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent!.id, prompt: "x", source: "test" })).id;
  for (let i = 1; i <= 5; i++) {
    await appendRunRecords(t.db, { runId, events: [{ type: "tool.pre", data: { i } }], ledger: [row(`guard-${i}`, i)] });
  }
});
afterAll(async () => {
  await t.drop();
});

const get = (path: string, token = viewer) => callRoute(runHooksRoute.GET, { token, path, params: { id: runId } });
const keys = (items: { hookKey: string }[]) => items.map((i) => i.hookKey);

test("pages of `limit` rows after the id `after`, until nextAfter is null; without limit, every row", async () => {
  const whole = await get("/");
  expect(whole.status).toBe(200);
  expect([keys(whole.body.items), whole.body.nextAfter]).toEqual([["guard-1", "guard-2", "guard-3", "guard-4", "guard-5"], null]);

  const first = await get("/?limit=2");
  expect([keys(first.body.items), first.body.nextAfter]).toEqual([["guard-1", "guard-2"], whole.body.items[1].id]);
  const second = await get(`/?after=${first.body.nextAfter}&limit=2`);
  expect([keys(second.body.items), second.body.nextAfter]).toEqual([["guard-3", "guard-4"], whole.body.items[3].id]);
  const last = await get(`/?after=${second.body.nextAfter}&limit=2`);
  expect([keys(last.body.items), last.body.nextAfter]).toEqual([["guard-5"], null]);
  // The rows a page holds are the rows as stored, the same as the whole list's.
  expect([...first.body.items, ...second.body.items, ...last.body.items]).toEqual(whole.body.items);
});

test("a bad page is a 422 naming the field; another project's run is not found", async () => {
  for (const [path, field] of [["/?limit=0", "limit"], ["/?limit=5001", "limit"], ["/?after=-1", "after"], ["/?after=abc", "after"]]) {
    const res = await get(path);
    expect([path, res.status, res.body.error.issues[0].path]).toEqual([path, 422, field]);
  }
  expect((await get("/?limit=2", stranger)).status).toBe(404);
});
