/**
 * Runs exported as OpenTelemetry traces, end to end: real runs on the run queue, spans made of
 * what they record, sent over OTLP/HTTP (protobuf) to a receiver in this process that decodes
 * them with the official proto definitions. The spans are asserted exactly: names, parents,
 * GenAI attributes, hook decisions as span events, statuses, times from the stored events.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { listApprovals } from "@/db/queries/approvals";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";

import { loadConfig } from "@/lib/platform/config/config";
import { otelConfigOf } from "@/lib/platform/telemetry/otel-config";
import { createTraceExport, installTraceExport, traceExport, type SpanRecord, type TraceExport } from "@/lib/platform/telemetry/trace-export";
import { closedPort } from "@/lib/core/hooks/testing/fakes";
import { callRoute } from "@/test/api-client";
import { startOtlpReceiver, traceOfRun, type OtlpReceiver, type ReceivedSpan } from "@/test/otlp-receiver";
import { addAgent, createRunHarness, operator, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";
import { cancelRun, startRun } from "../run-service";
import { createRunTraceRecorder, forgetOpenSpans, runTraceIdle } from "./run-trace-recorder";
import { spanIdOf, traceIdOf } from "./run-spans";
import { addPerson, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";

let h: RunHarness;
let receiver: OtlpReceiver;
let operatorToken: string;
const logged: { level: "warn" | "info"; message: string }[] = [];
const log = {
  warn: (_: Record<string, unknown>, message: string) => void logged.push({ level: "warn", message }),
  info: (_: Record<string, unknown>, message: string) => void logged.push({ level: "info", message }),
};

/** Runs from now on export with these settings (the previous exporter sends what it holds and stops). */
async function exportTo(env: Record<string, string>): Promise<TraceExport> {
  await traceExport()?.shutdown(1_000);
  const exporter = createTraceExport(otelConfigOf(loadConfig({ OTEL_BSP_SCHEDULE_DELAY: "10", ...env }))!, log);
  installTraceExport(exporter);
  return exporter;
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  await exportTo({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-token", OTEL_SERVICE_NAME: "hookplane-test" });
  h = await createRunHarness({ approvalHoldMs: 50 });
  await addPerson(h.t.db, { email: "admin@example.com", passwordHash: await hashPassword("long enough"), role: "admin", instanceAdmin: true });
  operatorToken = (await addToken(h.t.db, { name: "ops", role: "operator" })).token;
});
afterAll(async () => {
  await h.close();
  await traceExport()?.shutdown();
  installTraceExport(undefined);
  await receiver.close();
});

const traceOf = (runId: string, count: number) => traceOfRun(receiver, runId, count);

const byName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);
const one = (spans: ReceivedSpan[], name: string) => {
  const found = byName(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0];
};

const SCRIPTED = { "gen_ai.provider.name": "scripted", "gen_ai.system": "scripted", "gen_ai.request.model": "scripted" };

test("a run with model calls, two tool calls and a guard that blocks one: exactly its spans, after the GenAI conventions", async () => {
  const agent = await addAgent(
    h.t,
    {
      name: "traced",
      tools: ["list_files", "read_file"],
      script: [
        {
          text: "looking",
          toolCalls: [
            { name: "list_files", input: { path: "." } },
            { name: "read_file", input: { path: "/srv/prod/secrets.txt" } },
          ],
          usage: { inputTokens: 100, outputTokens: 20 },
        },
        { text: "done", usage: { inputTokens: 50, outputTokens: 5 } },
      ],
    },
    [
      { id: "audit-start", event: "session.start", action: { type: "log", message: "started" } },
      { id: "no-prod", event: "tool.pre", matcher: "read_file", action: { type: "block", reason: "Production paths are off-limits", denyIf: "/srv/prod" } },
      { id: "log-tools", event: "tool.post", action: { type: "log" } },
    ],
  );
  const started = await startRun(h.t.db, operator, { agent: agent.name, prompt: "what is in prod?" });
  const run = await waitForRun(h.t, started.id, (r) => r.status === "finished");
  expect(run.outcome).toBe("completed");
  const spans = await traceOf(run.id, 5);
  expect(spans.map((s) => s.name).sort()).toEqual(["chat scripted", "chat scripted", "execute_tool list_files", "execute_tool read_file", "invoke_agent traced"]);

  const events = await runEvents(h.t, run.id);
  const event = (type: string, nth = 0) => events.filter((e) => e.type === type)[nth];
  const traceId = traceIdOf(run.id);
  const rootId = spanIdOf(run.id, 0);
  const conversation = { "gen_ai.conversation.id": run.id };

  const root = one(spans, "invoke_agent traced");
  expect(root).toMatchObject({ traceId, spanId: rootId, parentSpanId: "", kind: 1, status: { code: 0 }, scope: "hookplane" });
  expect(root.resource).toMatchObject({ "service.name": "hookplane-test", "service.version": expect.any(String) });
  expect(root.attributes).toEqual({
    "gen_ai.operation.name": "invoke_agent",
    ...SCRIPTED,
    "gen_ai.agent.id": agent.id,
    "gen_ai.agent.name": "traced",
    ...conversation,
    "session.id": run.id,
    "gen_ai.usage.input_tokens": 150,
    "gen_ai.usage.output_tokens": 25,
    "gen_ai.usage.cache_read.input_tokens": 0,
    "gen_ai.usage.cost": run.costUsd,
    "openinference.span.kind": "AGENT",
    "hookplane.run.id": run.id,
    "hookplane.run.source": run.source,
    "hookplane.run.outcome": "completed",
  });
  expect([root.startMs, root.endMs]).toEqual([event("session.start").ts.getTime(), event("session.end").ts.getTime()]);
  expect(root.events).toEqual([
    {
      name: "hookplane.hook.decision",
      timeMs: expect.any(Number),
      attributes: {
        "hookplane.hook.id": "audit-start",
        "hookplane.hook.version": 1,
        "hookplane.hook.event": "session.start",
        "hookplane.hook.action": "log",
        "hookplane.hook.mode": "enforce",
        "hookplane.hook.verdict": "allow",
        "hookplane.hook.duration_ms": expect.any(Number),
      },
    },
  ]);

  // Built from memory (this worker recorded the whole run); read back from the database, as a
  // resumed run's worker builds it, the run span is the same.
  const readBack: SpanRecord[] = [];
  const capture: TraceExport = { captureContent: false, emit: (s) => void readBack.push(...s), flush: async () => {}, shutdown: async () => {} };
  const ctx = { runId: run.id, agent: { id: agent.id, name: agent.name, model: "scripted" }, source: run.source, externalSessionId: null, captureContent: false };
  createRunTraceRecorder(h.t.db, ctx, capture, { fromStart: false, run }).runEnded();
  await runTraceIdle();
  expect(readBack.map((s) => s.name)).toEqual(["invoke_agent traced"]);
  expect(readBack[0].attributes).toEqual(root.attributes);
  expect([readBack[0].start.getTime(), readBack[0].end.getTime()]).toEqual([root.startMs, root.endMs]);
  expect(readBack[0].events?.map((e) => ({ name: e.name, timeMs: e.time.getTime(), attributes: e.attributes }))).toEqual(root.events);

  const [first, second] = byName(spans, "chat scripted").sort((a, b) => a.startMs - b.startMs);
  for (const [span, nth, usage, finish] of [
    [first, 0, { input: 100, output: 20 }, "tool_use"],
    [second, 1, { input: 50, output: 5 }, "end_turn"],
  ] as const) {
    const pre = event("model.pre", nth);
    const post = event("model.post", nth);
    expect(span).toMatchObject({ traceId, spanId: spanIdOf(run.id, pre.seq), parentSpanId: rootId, kind: 3, status: { code: 0 }, events: [] });
    expect([span.startMs, span.endMs]).toEqual([pre.ts.getTime(), post.ts.getTime()]);
    expect(span.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      ...SCRIPTED,
      "gen_ai.response.finish_reasons": [finish],
      "gen_ai.usage.input_tokens": usage.input,
      "gen_ai.usage.output_tokens": usage.output,
      "gen_ai.usage.cache_read.input_tokens": 0,
      "gen_ai.usage.cost": post.data.costUsd,
      ...conversation,
      "openinference.span.kind": "LLM",
      "hookplane.turn": nth + 1,
    });
  }

  const listed = one(spans, "execute_tool list_files");
  const listPre = events.find((e) => e.type === "tool.pre" && e.data.toolName === "list_files")!;
  const listPost = events.find((e) => e.type === "tool.post" && e.data.toolName === "list_files")!;
  expect(listed).toMatchObject({ traceId, spanId: spanIdOf(run.id, listPre.seq), parentSpanId: rootId, kind: 1, status: { code: 0 } });
  expect([listed.startMs, listed.endMs]).toEqual([listPre.ts.getTime(), listPost.ts.getTime()]);
  expect(listed.attributes).toEqual({
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "list_files",
    "gen_ai.tool.call.id": "call_1_1",
    ...conversation,
    "openinference.span.kind": "TOOL",
  });
  // no-prod did not match list_files: only the hook that acted is an event, the tool.post log, after the result.
  expect(listed.events.map((e) => [e.attributes["hookplane.hook.id"], e.attributes["hookplane.hook.event"], e.attributes["hookplane.hook.verdict"]])).toEqual([
    ["log-tools", "tool.post", "allow"],
  ]);
  expect(listed.events[0].timeMs).toBeGreaterThanOrEqual(listPost.ts.getTime());

  const blocked = one(spans, "execute_tool read_file");
  const readPre = events.find((e) => e.type === "tool.pre" && e.data.toolName === "read_file")!;
  const denial = event("loop.tool_denied");
  expect(blocked).toMatchObject({ traceId, spanId: spanIdOf(run.id, readPre.seq), parentSpanId: rootId, kind: 1 });
  expect(blocked.status).toEqual({ code: 2, message: "Production paths are off-limits" });
  expect([blocked.startMs, blocked.endMs]).toEqual([readPre.ts.getTime(), denial.ts.getTime()]);
  expect(blocked.attributes).toEqual({
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "read_file",
    "gen_ai.tool.call.id": "call_1_2",
    ...conversation,
    "openinference.span.kind": "TOOL",
    "error.type": "blocked",
    "hookplane.tool.denied_by": "hook",
  });
  expect(blocked.events).toEqual([
    {
      name: "hookplane.hook.decision",
      timeMs: expect.any(Number),
      attributes: {
        "hookplane.hook.id": "no-prod",
        "hookplane.hook.version": 1,
        "hookplane.hook.event": "tool.pre",
        "hookplane.hook.action": "block",
        "hookplane.hook.mode": "enforce",
        "hookplane.hook.verdict": "block",
        "hookplane.hook.reason": "Production paths are off-limits",
        "hookplane.hook.duration_ms": expect.any(Number),
      },
    },
  ]);
  expect(blocked.events[0].timeMs).toBeGreaterThanOrEqual(readPre.ts.getTime());
  expect(blocked.events[0].timeMs).toBeLessThanOrEqual(denial.ts.getTime());

  // Content stays off by default: no tool input, result, prompt or model text anywhere.
  for (const span of spans) expect(Object.keys(span.attributes).filter((k) => /messages|arguments|result/.test(k))).toEqual([]);
  // The collector got protobuf, with the configured headers.
  expect(receiver.requests.at(-1)).toMatchObject({ contentType: "application/x-protobuf", headers: { authorization: "Bearer collector-token" } });
});

test("a run that parks for an approval and resumes as if in another process is one trace, its tool span whole", async () => {
  const agent = await addAgent(
    h.t,
    { name: "parks", tools: ["list_files"], script: [{ text: "listing", toolCalls: [{ name: "list_files", input: {} }] }, { text: "listed" }] },
    [{ id: "ask", event: "tool.pre", matcher: "list_files", action: { type: "approve", timeoutMs: 60_000, onTimeout: "deny" } }],
  );
  const started = await startRun(h.t.db, operator, { agent: agent.name, prompt: "list" });
  await waitForRun(h.t, started.id, (r) => r.status === "waiting_approval");
  // The first model call closed before the run parked: its span is out already.
  expect((await traceOf(started.id, 1)).map((s) => s.name)).toEqual(["chat scripted"]);
  // What this process remembers of the open tool span is gone, as in a worker that never saw it.
  forgetOpenSpans();

  const [pending] = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 50 })).filter((a) => a.runId === started.id);
  const decided = await callRoute(decisionRoute.POST, { method: "POST", token: operatorToken, params: { id: pending.id }, body: { decision: "approve", reason: "fine" } });
  expect(decided.status).toBe(200);
  const run = await waitForRun(h.t, started.id, (r) => r.status === "finished");
  expect(run.outcome).toBe("completed");

  const spans = await traceOf(run.id, 4);
  expect(spans.map((s) => s.name).sort()).toEqual(["chat scripted", "chat scripted", "execute_tool list_files", "invoke_agent parks"]);
  const rootId = spanIdOf(run.id, 0);
  expect(spans.every((s) => s.traceId === traceIdOf(run.id))).toBe(true);
  expect(spans.filter((s) => s.parentSpanId === rootId)).toHaveLength(3);

  const events = await runEvents(h.t, run.id);
  const pre = events.find((e) => e.type === "tool.pre")!;
  const post = events.find((e) => e.type === "tool.post")!;
  const tool = one(spans, "execute_tool list_files");
  expect(tool).toMatchObject({ spanId: spanIdOf(run.id, pre.seq), parentSpanId: rootId, status: { code: 0 } });
  expect([tool.startMs, tool.endMs]).toEqual([pre.ts.getTime(), post.ts.getTime()]);
  // In time order: asked, decided (when the person decided), the settlement recorded on resume.
  expect(tool.events.map((e) => e.name)).toEqual(["hookplane.approval.requested", "hookplane.hook.decision", "hookplane.approval.settled"]);
  expect(tool.events[1].attributes).toMatchObject({
    "hookplane.hook.id": "ask",
    "hookplane.hook.action": "approve",
    "hookplane.hook.verdict": "allow",
    "hookplane.approval.id": pending.id,
    "hookplane.approval.status": "approved",
    "hookplane.approval.decided_by": "token:ops",
    "hookplane.approval.decided_via": "api",
  });
  expect(tool.events[2].attributes).toMatchObject({ "hookplane.approval.decision": "approve", "hookplane.approval.decided_by": "token:ops" });
  // The decision is timed when the person decided.
  const decidedAt = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 50 })).find((a) => a.id === pending.id)!.decidedAt!;
  expect(tool.events[1].timeMs).toBe(decidedAt.getTime());
  expect(one(spans, "invoke_agent parks").attributes["hookplane.run.outcome"]).toBe("completed");
});

test("a run cancelled while it waits for a person: its tool span ends with the run, the abandoned wait on it", async () => {
  const agent = await addAgent(
    h.t,
    { name: "abandoned", tools: ["list_files"], script: [{ text: "listing", toolCalls: [{ name: "list_files", input: {} }] }, { text: "never" }] },
    [{ id: "ask-first", event: "tool.pre", action: { type: "approve", timeoutMs: 60_000, onTimeout: "deny" } }],
  );
  const started = await startRun(h.t.db, operator, { agent: agent.name, prompt: "list" });
  await waitForRun(h.t, started.id, (r) => r.status === "waiting_approval");
  await cancelRun(h.t.db, operator, started.id);
  const run = await waitForRun(h.t, started.id, (r) => r.status === "finished");
  expect(run.outcome).toBe("cancelled");
  const spans = await traceOf(run.id, 3);
  expect(spans.map((s) => s.name).sort()).toEqual(["chat scripted", "execute_tool list_files", "invoke_agent abandoned"]);
  const tool = one(spans, "execute_tool list_files");
  const end = (await runEvents(h.t, run.id)).find((e) => e.type === "session.end")!;
  expect(tool.endMs).toBe(end.ts.getTime());
  expect(tool.attributes["hookplane.tool.unfinished"]).toBe(true);
  expect(tool.events.find((e) => e.name === "hookplane.hook.decision")?.attributes).toMatchObject({ "hookplane.hook.id": "ask-first", "hookplane.approval.status": "abandoned" });
  expect(one(spans, "invoke_agent abandoned").attributes).toMatchObject({ "hookplane.run.outcome": "cancelled" });
});

test("content goes on spans only when asked: tool input and result, prompt and answers", async () => {
  await exportTo({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, HOOKPLANE_OTEL_CAPTURE_CONTENT: "true", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" });
  const agent = await addAgent(h.t, { name: "chatty", tools: ["list_files"], script: [{ text: "listing", toolCalls: [{ name: "list_files", input: { path: "." } }] }, { text: "all listed" }] });
  const started = await startRun(h.t.db, operator, { agent: agent.name, prompt: "list it" });
  const run = await waitForRun(h.t, started.id, (r) => r.status === "finished");
  const spans = await traceOf(run.id, 4);
  expect(receiver.requests.at(-1)?.contentType).toMatch(/^application\/json/);
  const tool = one(spans, "execute_tool list_files");
  const post = (await runEvents(h.t, run.id)).find((e) => e.type === "tool.post")!;
  expect(tool.attributes["gen_ai.tool.call.arguments"]).toBe('{"path":"."}');
  expect(tool.attributes["gen_ai.tool.call.result"]).toBe(post.data.output);
  const root = one(spans, "invoke_agent chatty");
  expect(JSON.parse(root.attributes["gen_ai.input.messages"] as string)).toEqual([{ role: "user", parts: [{ type: "text", content: "list it" }] }]);
  expect(JSON.parse(root.attributes["gen_ai.output.messages"] as string)).toEqual([{ role: "assistant", parts: [{ type: "text", content: "all listed" }] }]);
  const last = byName(spans, "chat scripted").sort((a, b) => a.startMs - b.startMs)[1];
  expect(JSON.parse(last.attributes["gen_ai.output.messages"] as string)).toEqual([{ role: "assistant", parts: [{ type: "text", content: "all listed" }], finish_reason: "end_turn" }]);
});

test("the collector down: runs complete, nothing is thrown, a warning once, however many exports fail", async () => {
  logged.length = 0;
  const down = await exportTo({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await closedPort()}`, OTEL_EXPORTER_OTLP_TIMEOUT: "300" });
  const agent = await addAgent(h.t, { name: "unobserved", tools: ["list_files"], script: [{ text: "listing", toolCalls: [{ name: "list_files", input: {} }] }, { text: "fine" }] });
  for (let i = 0; i < 3; i++) {
    const started = await startRun(h.t.db, operator, { agent: agent.name, prompt: `run ${i}` });
    const run = await waitForRun(h.t, started.id, (r) => r.status === "finished");
    expect(run.outcome).toBe("completed");
    await runTraceIdle();
    await down.flush();
  }
  expect(logged.filter((l) => l.level === "warn")).toEqual([{ level: "warn", message: "OpenTelemetry export failed: spans are dropped until the collector answers" }]);
  await exportTo({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
});
