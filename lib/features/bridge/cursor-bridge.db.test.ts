/**
 * The Cursor bridge, from Cursor's published hooks reference (Cursor does not run here: see
 * test/fixtures/bridges/cursor/SOURCE.md): a session's payloads through the ingest endpoint, its
 * answers, and `hookplane hook cursor` refusing in JSON when Hookplane cannot answer.
 */
import path from "node:path";
import { expect, test } from "vitest";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRunByExternalSession } from "@/db/queries/runs";
import { closedPort, recordedPayloads, noRmHook, TESTS_FIRST_HOOK, useBridgeHarness } from "@/test/bridge-harness";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import * as cursorRoute from "@/app/api/v1/ingest/cursor/route";

const FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/bridges/cursor");
type Payload = Record<string, unknown> & { conversation_id: string; hook_event_name: string };
const payloads = () => recordedPayloads<Payload>(FIXTURES, "session");

const h = useBridgeHarness({
  ingest: { method: "POST", path: "/api/v1/ingest/cursor", handler: cursorRoute.POST },
  agents: {
    plain: [],
    gates: [
      noRmHook("Shell"),
      { id: "no-env", event: "tool.pre", matcher: "Read", when: "toolInput.file_path: /\\.env$/", action: { type: "block", reason: "Secrets stay unread" } },
      { id: "ask-mcp", event: "tool.pre", matcher: "github_search", action: { type: "approve", timeoutMs: 60_000, onTimeout: "deny" } },
      TESTS_FIRST_HOOK,
    ],
  },
});
const send = (agent: string, payload: Payload) => h.send(agent, payload);

test("a conversation is a run with source cursor; shell, read, MCP and edits as tool events, every field kept", async () => {
  const list = payloads();
  for (const p of list) expect((await send("plain", p)).body).toEqual({});
  const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.plain, externalSessionId: list[0].conversation_id }))!;
  expect(run).toMatchObject({ source: "cursor", status: "running", toolsUsed: ["Shell", "Read", "github_search"] });
  const events = await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 });
  expect(events.map((e) => [e.type, e.data.toolName ?? null])).toEqual([
    ["user.prompt.submit", null],
    ["tool.pre", "Shell"],
    ["tool.post", "Shell"],
    ["tool.pre", "Read"],
    ["tool.pre", "github_search"],
    ["tool.post", "Edit"],
    ["turn.end", null],
  ]);
  expect(events[1].data).toMatchObject({ toolInput: { command: "ls -la", cwd: "/home/dev/project" }, cwd: "/home/dev/project" });
  expect(events[3].data.cursor).toMatchObject({ content: "# Project\n", generation_id: "g-0001", cursor_version: "1.7.0" });
  expect(events[4].data).toMatchObject({ toolInput: { query: "hooks" }, cursor: { url: "https://mcp.example.com/sse" } });
});

test("answers in Cursor's shape: permission deny with messages, an approval as allow, stop's followup", async () => {
  const list = payloads().map((p) => ({ ...p, conversation_id: "cursor-gates" }));
  const at = (event: string) => list.find((p) => p.hook_event_name === event)!;
  expect((await send("gates", { ...at("beforeShellExecution"), command: "rm -rf /" })).body).toEqual({ permission: "deny", user_message: "No rm -rf here", agent_message: "No rm -rf here" });
  expect((await send("gates", { ...at("beforeReadFile"), file_path: "/home/dev/project/.env" })).body).toMatchObject({ permission: "deny" });
  expect((await send("gates", at("beforeReadFile"))).body).toEqual({});
  const asking = send("gates", at("beforeMCPExecution"));
  const approval = await h.pendingApproval((a) => a.toolName === "github_search", { timeout: 15_000, limit: 20 });
  await h.decide(approval.id, { decision: "approve" });
  expect((await asking).body).toEqual({ permission: "allow" });
  expect((await send("gates", at("stop"))).body).toEqual({ followup_message: "Run the tests before you stop." });
  expect((await send("gates", { ...at("stop"), loop_count: 1 })).body).toEqual({});
  const bad = await send("gates", { ...at("beforeShellExecution"), command: undefined } as never);
  expect(bad.status).toBe(422);
  expect(bad.body.error.issues[0].path).toBe("command");
});

test("no answer: the gate refuses in JSON, stop goes on", async () => {
  const env = { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}`, HOOKPLANE_TOKEN: h.operator };
  const list = payloads();
  const shell = await runHookplaneCli(["hook", "cursor", "--agent", "plain"], list[1], env);
  expect(shell.code).toBe(0);
  expect(shell.json()).toEqual({ permission: "deny", user_message: expect.stringMatching(/ECONNREFUSED — blocking/), agent_message: expect.stringMatching(/ECONNREFUSED/) });
  const prompt = await runHookplaneCli(["hook", "cursor", "--agent", "plain"], list[0], env);
  expect(prompt.json()).toMatchObject({ continue: false });
  const stop = await runHookplaneCli(["hook", "cursor", "--agent", "plain"], list[6], env);
  expect([stop.code, stop.stdout]).toEqual([0, ""]);
  expect(stop.stderr).toMatch(/not blocking stop: exit 2 there would keep Cursor working/);
});
