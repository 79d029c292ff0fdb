/**
 * Standard Agents' transform hooks in real runs: the operator's `.mjs` defineHook modules, loaded
 * from a temporary HOOKPLANE_HOOKS_DIR, shape what the agent stores and what the model reads, scoped
 * by the agent's `codeHooks` and overridden by the run's own list.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import * as agentsRoute from "@/app/api/v1/agents/route";
import * as runsRoute from "@/app/api/v1/runs/route";
import { callRoute } from "@/test/api-client";
import { loadConfig } from "@/lib/platform/config/config";
import { loadOperatorCodeHooks } from "@/lib/features/hooks/operator-code-hooks";
import { startRun } from "./run-service";
import { addAgent, createRunHarness, expectWellFormedStream, operator, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";
import { setEnv } from "@/test/config-env";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { addPerson, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";

let h: RunHarness;
let dir: string;
let outDir: string;
let token: string;
let adminToken: string;
const admin = { kind: "user" as const, id: "a1", label: "admin@example.com", role: "admin" as const, projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: false };

// The secret appears only in the tool's output: the command builds it, so the tool call's input does not hold it.
const SECRET = "sk-abc123";
const script = [
  { text: "Reading the config.", toolCalls: [{ name: "shell", input: { command: "echo token=sk-$(echo abc123)" } }] },
  { text: "The config is read." },
];

const hooks: Record<string, string> = {
  // before_store_tool_result: redacts API keys before the result is recorded anywhere.
  "redact.mjs": `export default {
    type: "before_store_tool_result",
    id: "redact_tokens",
    execute: (_ctx, _toolCall, result) => ({ ...result, output: result.output.replace(/sk-[A-Za-z0-9]+/g, "[redacted]") }),
  };`,
  // filter_messages: what the model reads of the prompt, without changing the stored one.
  "filter.mjs": `export default {
    type: "filter_messages",
    id: "tag_prompt",
    execute: (_ctx, messages) => messages.map((m) => (m.role === "user" ? { ...m, text: m.text + " [filtered]" } : m)),
  };`,
  // prefilter_llm_history: records the list the model is about to get (returns nothing: no change).
  "record.mjs": `import { appendFileSync } from "node:fs";
    export default {
      type: "prefilter_llm_history",
      id: "record_history",
      execute: (ctx, messages) => {
        appendFileSync(new URL("./out/" + ctx.runId + ".jsonl", import.meta.url), JSON.stringify(messages) + "\\n");
      },
    };`,
  // after_create_message: an event hook, told of every stored message.
  "created.mjs": `import { appendFileSync } from "node:fs";
    export default {
      type: "after_create_message",
      id: "record_created",
      execute: (ctx, message) => {
        appendFileSync(new URL("./out/" + ctx.runId + ".created", import.meta.url), message.role + "\\n");
      },
    };`,
  // A buggy hook: logged, recorded, and the message it was given is stored unchanged.
  "broken.mjs": `export default {
    type: "before_create_message",
    id: "broken_hook",
    execute: () => { throw new Error("hook bug"); },
  };`,
};

const ALL = ["redact_tokens", "tag_prompt", "record_history", "record_created", "broken_hook"];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "hookplane-transforms-"));
  outDir = path.join(dir, "out");
  mkdirSync(outDir);
  for (const [file, source] of Object.entries(hooks)) writeFileSync(path.join(dir, file), source);
  // Code hooks load and the agents' shell steps run: running code is on.
  setEnv({ HOOKPLANE_ALLOW_CODE_EXECUTION: "1" });
  const registry = await loadOperatorCodeHooks(loadConfig({ HOOKPLANE_HOOKS_DIR: dir, HOOKPLANE_ALLOW_CODE_EXECUTION: "1" }));
  expect(registry?.ids().sort()).toEqual([...ALL].sort());
  h = await createRunHarness();
  await addPerson(h.t.db, { email: "admin@example.com", instanceAdmin: true, passwordHash: await hashPassword("long enough") });
  token = (await addToken(h.t.db, { role: "operator", name: "ops" })).token;
  adminToken = (await addToken(h.t.db, { role: "admin", name: "admin" })).token;
});
afterAll(async () => {
  setEnv({ HOOKPLANE_ALLOW_CODE_EXECUTION: undefined });
  await h.close();
  (globalThis as Record<symbol, unknown>)[Symbol.for("hookplane.codeHooks")] = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function sentHistory(runId: string): Record<string, unknown>[][] {
  const file = path.join(outDir, `${runId}.jsonl`);
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l)) : [];
}

async function finished(runId: string) {
  const run = await waitForRun(h.t, runId, (r) => r.status === "finished");
  const events = await runEvents(h.t, runId);
  expectWellFormedStream(events);
  return { run, events };
}

test("an agent's code hooks (set through the API) redact the stored tool result, filter what the model reads, and survive a throwing hook", async () => {
  const body = { name: "configured", tools: ["shell"], script, codeHooks: ALL };
  // Choosing code hooks is an admin's call, as for a `code` hook.
  const refused = await callRoute(agentsRoute.POST, { method: "POST", token, body });
  expect(refused.status).toBe(403);
  const created = await callRoute(agentsRoute.POST, { method: "POST", token: adminToken, body });
  expect(created.status).toBe(201);
  expect(created.body.codeHooks).toEqual(ALL);

  const started = await callRoute(runsRoute.POST, { method: "POST", token, body: { agent: "configured", prompt: "read the config" } });
  expect(started.status).toBe(202);
  const { run, events } = await finished(started.body.id);
  expect(run.outcome).toBe("completed");
  expect(run.response).toBe("The config is read.");
  expect(run.codeHooks).toBeNull();

  // before_store_tool_result: tool.post (and everything after it) carries the redacted output.
  const toolPost = events.find((e) => e.type === "tool.post")!;
  expect(toolPost.data.output).toBe("token=[redacted]\n");
  expect(JSON.stringify(events)).not.toContain(SECRET);

  // filter_messages then prefilter_llm_history: the model's second input has the tagged prompt and the redacted result.
  const sent = sentHistory(run.id);
  expect(sent).toHaveLength(2);
  expect(sent[0]).toEqual([{ role: "user", text: "read the config [filtered]" }]);
  expect(sent[1]).toEqual([
    { role: "user", text: "read the config [filtered]" },
    { role: "assistant", text: "Reading the config.", toolCalls: [{ id: "call_1_1", name: "shell", input: { command: "echo token=sk-$(echo abc123)" } }] },
    { role: "tool_result", toolCallId: "call_1_1", toolName: "shell", output: "token=[redacted]\n", isError: false },
  ]);

  // after_create_message: every stored message, in order.
  expect(readFileSync(path.join(outDir, `${run.id}.created`), "utf8")).toBe("user\nassistant\ntool_result\nassistant\n");

  // The throwing before_create_message hook: recorded once per message it was given, the run unharmed.
  const errors = events.filter((e) => e.type === "code_hook.error");
  expect(errors.map((e) => e.data)).toEqual([
    { hookId: "broken_hook", hookType: "before_create_message", agentName: "configured", message: "hook bug" },
    { hookId: "broken_hook", hookType: "before_create_message", agentName: "configured", message: "hook bug" },
    { hookId: "broken_hook", hookType: "before_create_message", agentName: "configured", message: "hook bug" },
  ]);
  expect(events.some((e) => e.type === "error" || e.type === "loop.transform_error")).toBe(false);
});

test("the run's own list overrides the agent's: [] runs none, a narrower list runs only those", async () => {
  await addAgent(h.t, { name: "overridden", tools: ["shell"], script, codeHooks: ALL });

  // Dropping the agent's hooks for a run is a change too: operators may not.
  const refused = await callRoute(runsRoute.POST, { method: "POST", token, body: { agent: "overridden", prompt: "go", codeHooks: [] } });
  expect(refused.status).toBe(403);
  const bare = await callRoute(runsRoute.POST, { method: "POST", token: adminToken, body: { agent: "overridden", prompt: "go", codeHooks: [] } });
  expect(bare.status).toBe(202);
  const none = await finished(bare.body.id);
  expect(none.run.codeHooks).toEqual([]);
  expect(none.events.find((e) => e.type === "tool.post")!.data.output).toBe(`token=${SECRET}\n`);
  expect(none.events.filter((e) => e.type.startsWith("code_hook."))).toEqual([]);
  expect(sentHistory(none.run.id)).toEqual([]);

  const narrow = await startRun(h.t.db, admin, { agent: "overridden", prompt: "go", codeHooks: ["redact_tokens", "record_history"] });
  // The agent's own list restated is no change: an operator may.
  await finished((await startRun(h.t.db, operator, { agent: "overridden", prompt: "go", codeHooks: ALL })).id);
  const some = await finished(narrow.id);
  expect(some.events.find((e) => e.type === "tool.post")!.data.output).toBe("token=[redacted]\n");
  expect(some.events.filter((e) => e.type === "code_hook.error")).toEqual([]);
  // tag_prompt is the agent's, not the run's: the prompt reaches the model unfiltered.
  expect(sentHistory(some.run.id)[0]).toEqual([{ role: "user", text: "go" }]);
});

test("no codeHooks anywhere runs no code hook; a reference to a hook that is not installed is reported", async () => {
  await addAgent(h.t, { name: "plain", tools: ["shell"], script });
  const plain = await finished((await startRun(h.t.db, operator, { agent: "plain", prompt: "go" })).id);
  expect(plain.events.find((e) => e.type === "tool.post")!.data.output).toBe(`token=${SECRET}\n`);
  expect(sentHistory(plain.run.id)).toEqual([]);

  await addAgent(h.t, { name: "dangling", tools: ["shell"], script, codeHooks: ["no_such_hook", "redact_tokens"] });
  const dangling = await finished((await startRun(h.t.db, operator, { agent: "dangling", prompt: "go" })).id);
  expect(dangling.run.outcome).toBe("completed");
  expect(dangling.events.find((e) => e.type === "code_hook.missing")?.data).toEqual({
    agentName: "dangling",
    hookIds: ["no_such_hook"],
    reason: "not installed in HOOKPLANE_HOOKS_DIR",
  });
  expect(dangling.events.find((e) => e.type === "tool.post")!.data.output).toBe("token=[redacted]\n");
});

test("code hook ids are validated: not snake_case is a 422", async () => {
  const bad = await callRoute(runsRoute.POST, { method: "POST", token: adminToken, body: { agent: "plain", prompt: "go", codeHooks: ["Not-Snake"] } });
  expect(bad.status).toBe(422);
  const badAgent = await callRoute(agentsRoute.POST, { method: "POST", token: adminToken, body: { name: "bad-hooks", codeHooks: ["x-y"] } });
  expect(badAgent.status).toBe(422);
});
