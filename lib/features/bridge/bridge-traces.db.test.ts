/**
 * A bridged Claude Code session exports as a trace like a run Hookplane executes: its tool calls
 * (one blocked by a hook) and the model calls its transcript reported, under an `invoke_agent`
 * span whose conversation is Claude Code's session id.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { getRunByExternalSession } from "@/db/queries/runs";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { loadConfig } from "@/lib/platform/config/config";
import { otelConfigOf } from "@/lib/platform/telemetry/otel-config";
import { createTraceExport, installTraceExport, traceExport } from "@/lib/platform/telemetry/trace-export";
import { spanIdOf, traceIdOf } from "@/lib/features/runs/telemetry/run-spans";
import { noRmHook, useBridgeHarness } from "@/test/bridge-harness";
import { startOtlpReceiver, traceOfRun, type OtlpReceiver } from "@/test/otlp-receiver";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";

const h = useBridgeHarness({
  ingest: { method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST },
  agents: { coder: [noRmHook("Bash")] },
  prices: true,
});
let receiver: OtlpReceiver;
const quiet = { warn: () => {}, info: () => {} };

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  installTraceExport(createTraceExport(otelConfigOf(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "10" }))!, quiet));
});
afterAll(async () => {
  await traceExport()?.shutdown();
  installTraceExport(undefined);
  await receiver.close();
});

const SESSION = "5b9e2c1a-0000-4000-8000-00000000c0de";
const claude = (event: string, extra: Record<string, unknown> = {}) => ({ session_id: SESSION, transcript_path: "/tmp/t.jsonl", cwd: "/home/dev/p", hook_event_name: event, ...extra });
const bash = (id: string, command: string) => ({ tool_name: "Bash", tool_input: { command }, tool_use_id: id });

test("a Claude Code session: its tool calls, the blocked one in error, the transcript's model call, one trace", async () => {
  const usage = { transcript: "/tmp/t.jsonl", messages: [{ id: "msg_1", model: "claude-sonnet-4-5", input_tokens: 100, output_tokens: 30, cache_read_input_tokens: 50 }] };
  for (const payload of [
    claude("SessionStart", { source: "startup" }),
    claude("UserPromptSubmit", { prompt: "clean up" }),
    claude("PreToolUse", bash("toolu_1", "ls")),
    claude("PostToolUse", { ...bash("toolu_1", "ls"), tool_response: { stdout: "a b" } }),
    claude("PreToolUse", bash("toolu_2", "rm -rf /")),
    claude("Stop", { stop_hook_active: false, hookplane_usage: usage }),
    claude("SessionEnd", { reason: "logout" }),
  ]) {
    expect((await h.send("coder", payload)).status).toBe(200);
  }
  const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds.coder, externalSessionId: SESSION }))!;
  expect(run).toMatchObject({ status: "finished", outcome: "completed", source: "claude-code" });
  // The harness's operator token is a person's: the person is who acted.
  expect(run).toMatchObject({ actorLabel: "operator@people.test", actorUserId: expect.any(String) });
  const spans = await traceOfRun(receiver, run.id, 4);
  expect(spans.map((s) => s.name).sort()).toEqual(["chat claude-sonnet-4-5", "execute_tool Bash", "execute_tool Bash", "invoke_agent coder"]);
  const rootId = spanIdOf(run.id, 0);
  expect(spans.every((s) => s.traceId === traceIdOf(run.id))).toBe(true);

  const root = spans.find((s) => s.name === "invoke_agent coder")!;
  expect(root.parentSpanId).toBe("");
  expect(root.attributes).toEqual({
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.provider.name": "anthropic",
    "gen_ai.system": "anthropic",
    "gen_ai.agent.id": h.agentIds.coder,
    "gen_ai.agent.name": "coder",
    "gen_ai.conversation.id": SESSION,
    "session.id": SESSION,
    "gen_ai.usage.input_tokens": 150,
    "gen_ai.usage.output_tokens": 30,
    "gen_ai.usage.cache_read.input_tokens": 50,
    "gen_ai.usage.cost": run.costUsd,
    "openinference.span.kind": "AGENT",
    "hookplane.run.id": run.id,
    "hookplane.run.source": "claude-code",
    "enduser.id": run.actorUserId,
    "hookplane.actor": run.actorLabel,
    "hookplane.run.outcome": "completed",
    "hookplane.run.reason": "logout",
  });

  const events = await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 });
  const pre = (id: string) => events.find((e) => e.type === "tool.pre" && e.data.toolCallId === id)!;
  const [ran, blocked] = spans.filter((s) => s.name === "execute_tool Bash").sort((a, b) => a.startMs - b.startMs);
  expect(ran).toMatchObject({ spanId: spanIdOf(run.id, pre("toolu_1").seq), parentSpanId: rootId, status: { code: 0 } });
  expect(ran.attributes).toMatchObject({ "gen_ai.tool.name": "Bash", "gen_ai.tool.call.id": "toolu_1", "gen_ai.conversation.id": SESSION });
  // no-rm looked at `ls` and let it through: a decision, with no reason to give.
  expect(ran.events.map((e) => e.attributes)).toEqual([expect.objectContaining({ "hookplane.hook.id": "no-rm", "hookplane.hook.verdict": "allow" })]);
  expect(blocked).toMatchObject({ spanId: spanIdOf(run.id, pre("toolu_2").seq), parentSpanId: rootId, status: { code: 2, message: "No rm -rf here" } });
  expect(blocked.attributes).toMatchObject({ "gen_ai.tool.call.id": "toolu_2", "error.type": "blocked", "hookplane.tool.denied_by": "hook" });
  expect(blocked.events.map((e) => e.attributes)).toEqual([expect.objectContaining({ "hookplane.hook.id": "no-rm", "hookplane.hook.verdict": "block", "hookplane.hook.reason": "No rm -rf here" })]);

  const chat = spans.find((s) => s.name === "chat claude-sonnet-4-5")!;
  const post = events.find((e) => e.type === "model.post")!;
  expect(chat).toMatchObject({ spanId: spanIdOf(run.id, post.seq), parentSpanId: rootId, kind: 3, startMs: post.ts.getTime(), endMs: post.ts.getTime() });
  expect(chat.attributes).toEqual({
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "anthropic",
    "gen_ai.system": "anthropic",
    "gen_ai.request.model": "claude-sonnet-4-5",
    "gen_ai.usage.input_tokens": 150,
    "gen_ai.usage.output_tokens": 30,
    "gen_ai.usage.cache_read.input_tokens": 50,
    "gen_ai.usage.cost": post.data.costUsd,
    "gen_ai.conversation.id": SESSION,
    "openinference.span.kind": "LLM",
    "hookplane.model.source": "transcript",
  });
});
