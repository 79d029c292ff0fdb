import { afterAll, beforeAll, expect, test } from "vitest";
import { eq } from "drizzle-orm";
import { DEFAULT_PROJECT_ID, runs } from "@/db/schema";
import { appendMemoryNote } from "@/db/queries/memory-notes";
import { callRoute } from "@/test/api-client";
import * as schedulesRoute from "@/app/api/v1/schedules/route";

import { addAgent, createRunHarness, expectWellFormedStream, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";
import { addPerson, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";

let h: RunHarness;
let token: string;

beforeAll(async () => {
  h = await createRunHarness();
  await addPerson(h.t.db, { email: "a@example.com", passwordHash: await hashPassword("long enough"), role: "admin", instanceAdmin: true });
  token = (await addToken(h.t.db, { name: "ops", role: "operator" })).token;
});
afterAll(async () => {
  await h.close();
});

test("bad timing is 422 naming the field", async () => {
  const both = await callRoute(schedulesRoute.POST, { method: "POST", token, body: { agent: "x", prompt: "p" } });
  expect(both.status).toBe(422);
  expect(both.body.error.issues[0].path).toBe("cron");
  const badCron = await callRoute(schedulesRoute.POST, { method: "POST", token, body: { agent: "x", prompt: "p", cron: "every tuesday" } });
  expect(badCron.status).toBe(422);
  expect(badCron.body.error.issues[0]).toMatchObject({ path: "cron", message: expect.stringContaining("cron") });
});

test("an interval schedule fires runs with its template variables; before-run tool output is prepended", async () => {
  await addAgent(h.t, { name: "digest", tools: [], script: [{ text: "digest written" }] });
  await appendMemoryNote(h.t.db, { projectId: DEFAULT_PROJECT_ID, name: "inbox.md", text: "3 new messages" });
  const created = await callRoute(schedulesRoute.POST, {
    method: "POST",
    token,
    body: {
      agent: "digest",
      name: "every-second",
      intervalMs: 1000,
      prompt: "Summarize since {{last_run}} (previously: {{last_response}})",
      hooks: [{ id: "read-inbox", event: "session.start", action: { type: "tool", tool: "memory", args: { action: "read", file: "inbox.md" } } }],
    },
  });
  expect(created.status).toBe(201);
  const scheduleId = created.body.id;

  await expect
    .poll(async () => (await h.t.db.select().from(runs).where(eq(runs.scheduleId, scheduleId))).length, { timeout: 15_000, interval: 100 })
    .toBeGreaterThanOrEqual(2);
  const fired = (await h.t.db.select().from(runs).where(eq(runs.scheduleId, scheduleId))).sort((a, b) => +a.createdAt - +b.createdAt);
  const first = await waitForRun(h.t, fired[0].id, (r) => r.status === "finished");
  expect(first.source).toBe("schedule");
  expect(first.prompt).toBe("Summarize since never (previously: )");
  expect(first.vars).toMatchObject({ last_run: "never", last_run_epoch: "0", next_task: expect.stringContaining("Summarize") });
  const events = await runEvents(h.t, first.id);
  expectWellFormedStream(events);
  const submitted = events.find((e) => e.type === "user.prompt.submit");
  expect(String(submitted?.data.prompt)).toContain("3 new messages");
  expect(String(submitted?.data.prompt)).toContain("Summarize since never");

  const second = await waitForRun(h.t, fired[1].id, (r) => r.status === "finished");
  expect(second.vars?.last_run).not.toBe("never");
  expect(new Date(second.vars!.last_run).getTime()).toBeGreaterThan(0);
  expect(second.prompt).toContain("previously: digest written");

  const listed = await callRoute(schedulesRoute.GET, { token });
  expect(listed.body.items[0]).toMatchObject({ name: "every-second", intervalMs: 1000, lastResponse: "digest written" });
});
