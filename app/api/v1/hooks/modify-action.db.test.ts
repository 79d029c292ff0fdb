/**
 * The modify and ask actions through the hooks API: a bad patch or a change on the wrong event is
 * 422 at its path and stores nothing; a good one is stored as sent.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { listHooks } from "@/db/queries/hooks";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addToken } from "@/test/people";
import * as hooksRoute from "./route";

let t: TestDatabase;
let operator: string;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  operator = (await addToken(t.db, { role: "operator" })).token;
});
afterAll(async () => t?.drop());

const post = (body: unknown) => callRoute(hooksRoute.POST, { method: "POST", token: operator, body });
const issues = (body: { error: { issues?: { path: string; message: string }[] } }) => body.error.issues ?? [];

test("a bad patch, a change on the wrong event, or a bad redact pattern is 422 at its path; nothing is stored", async () => {
  const notObject = await post({ id: "m1", event: "tool.pre", action: { type: "modify", input: "rm -rf ./build" } });
  expect(notObject.status).toBe(422);
  expect(issues(notObject.body).map((i) => i.path)).toEqual(["action.input"]);
  const tooBig = await post({ id: "m2", event: "tool.pre", action: { type: "modify", input: { command: "x".repeat(70_000) } } });
  expect(issues(tooBig.body)).toEqual([{ path: "action.input", message: expect.stringContaining("at most 65536 bytes") }]);
  const wrongEvent = await post({ id: "m3", event: "tool.post", action: { type: "modify", input: { command: "ls" } } });
  expect(issues(wrongEvent.body)).toEqual([{ path: "action.input", message: "input rewrites a tool call before it runs: it belongs on tool.pre, not tool.post" }]);
  const badRegex = await post({ id: "m4", event: "tool.post", action: { type: "modify", redact: ["(unclosed"] } });
  expect(issues(badRegex.body).map((i) => i.path)).toEqual(["action.redact[0]"]);
  const askOffPre = await post({ id: "m5", event: "tool.post", action: { type: "ask" } });
  expect(issues(askOffPre.body).map((i) => i.path)).toEqual(["action.type"]);
  expect(await listHooks(t.db, { projectId: DEFAULT_PROJECT_ID })).toEqual([]);
});

test("a good modify and ask are stored as sent", async () => {
  const patch = await post({ id: "safe-rm", event: "tool.pre", matcher: "Bash", action: { type: "modify", input: { command: "rm -rf ./build", description: null } } });
  expect(patch.status).toBe(201);
  expect(patch.body).toMatchObject({ key: "safe-rm", spec: { action: { type: "modify", input: { command: "rm -rf ./build", description: null } } } });
  const redact = await post({ id: "no-keys", event: "tool.post", action: { type: "modify", redact: ["sk-[A-Za-z0-9]{20,}"], replacement: "***" } });
  expect(redact.status).toBe(201);
  const ask = await post({ id: "confirm", event: "tool.pre", action: { type: "ask", reason: "deploys need a human" } });
  expect(ask.status).toBe(201);
  expect((await listHooks(t.db, { projectId: DEFAULT_PROJECT_ID })).map((h) => h.key).sort()).toEqual(["confirm", "no-keys", "safe-rm"]);
});
