/**
 * The recorder fed committed batches by hand, as a worker's first execution writes them (the
 * whole record passes through it, so nothing is read back from a database): when a span goes
 * out, and with what.
 */
import { expect, test } from "vitest";
import type { Db } from "@/db/client";
import type { SpanRecord, TraceExport } from "@/lib/platform/telemetry/trace-export";
import type { RecordedBatch } from "../run-event-writer";
import { createRunTraceRecorder } from "./run-trace-recorder";
import { spanIdOf } from "./run-spans";

const RUN = "6f1c2a40-1111-4222-8333-444455556666";
const noDatabase = new Proxy({}, { get: () => { throw new Error("no database read is expected"); } }) as Db;

function recorder() {
  const emitted: SpanRecord[] = [];
  const exporter: TraceExport = { captureContent: false, emit: (spans) => void emitted.push(...spans), flush: async () => {}, shutdown: async () => {} };
  const ctx = { runId: RUN, agent: { id: "a1", name: "worker", model: "openai:gpt-4o" }, source: "api", captureContent: false };
  const r = createRunTraceRecorder(noDatabase, ctx, exporter, { fromStart: true, run: { prompt: "go", createdAt: new Date(0) } });
  let seq = 0;
  const at = (ms: number) => new Date(1_700_000_000_000 + ms);
  const event = (type: string, data: Record<string, unknown>, ms: number) => ({ seq: ++seq, type, ts: at(ms), data });
  const batch = (b: Partial<RecordedBatch>) => r.observe({ events: [], ledger: [], settled: [], ...b });
  const row = (eventSeq: number, hookKey: string, verdict: string, event = "tool.pre") => ({ runId: RUN, eventSeq, event, hookKey, matched: true, verdict, reason: verdict === "block" ? "no" : null, mode: "enforce", action: "block", durationMs: 2 });
  return { emitted, event, batch, row };
}

test("a tool span goes out once tool.post's hooks have run, with their decisions; a denial closes at once", () => {
  const { emitted, event, batch, row } = recorder();
  const pre = event("tool.pre", { toolName: "ls", toolCallId: "c1", toolInput: {} }, 10);
  batch({ events: [pre], ledger: [row(pre.seq, "guard", "allow")], settled: [pre.seq] });
  const post = event("tool.post", { toolName: "ls", toolCallId: "c1", output: "a", isError: false }, 20);
  batch({ events: [post] });
  expect(emitted).toEqual([]);
  batch({ ledger: [row(post.seq, "audit", "allow", "tool.post")], settled: [post.seq] });
  expect(emitted.map((s) => [s.name, s.spanId, s.start.getTime(), s.end.getTime()])).toEqual([["execute_tool ls", spanIdOf(RUN, pre.seq), pre.ts.getTime(), post.ts.getTime()]]);
  expect(emitted[0].events?.map((e) => [e.attributes?.["hookplane.hook.id"], e.time.getTime()])).toEqual([
    ["guard", pre.ts.getTime() + 2],
    ["audit", post.ts.getTime() + 2],
  ]);

  const rm = event("tool.pre", { toolName: "rm", toolCallId: "c2" }, 30);
  const denied = event("loop.tool_denied", { toolName: "rm", toolCallId: "c2", reason: "no", by: "hook" }, 31);
  batch({ events: [rm, denied], ledger: [row(rm.seq, "guard", "block")], settled: [rm.seq] });
  expect(emitted[1]).toMatchObject({ name: "execute_tool rm", error: { message: "no" }, attributes: { "error.type": "blocked" } });
});

test("a model call fired again after a crash is one span, from its last model.pre", () => {
  const { emitted, event, batch } = recorder();
  batch({ events: [event("model.pre", { model: "openai:gpt-4o", turn: 1 }, 0)] });
  const again = event("model.pre", { model: "openai:gpt-4o", turn: 1 }, 50);
  const post = event("model.post", { model: "openai:gpt-4o", turn: 1, stopReason: "stop", inputTokens: 10, outputTokens: 2, cachedTokens: 0, costUsd: 0.001 }, 90);
  batch({ events: [again, post], settled: [again.seq, post.seq] });
  expect(emitted).toHaveLength(1);
  expect(emitted[0]).toMatchObject({ name: "chat gpt-4o", spanId: spanIdOf(RUN, again.seq), kind: "client", attributes: { "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o", "gen_ai.response.finish_reasons": ["stop"] } });
  expect([emitted[0].start, emitted[0].end]).toEqual([again.ts, post.ts]);
});

test("the run ends while a tool call waits: the run span from memory, the call ended with it", () => {
  const { emitted, event, batch, row } = recorder();
  const start = event("session.start", { prompt: "go" }, 0);
  batch({ events: [start], settled: [start.seq] });
  const call = event("model.pre", { model: "openai:gpt-4o", turn: 1 }, 1);
  const post = event("model.post", { model: "openai:gpt-4o", turn: 1, inputTokens: 7, outputTokens: 3, cachedTokens: 1, costUsd: 0.5 }, 5);
  const pre = event("tool.pre", { toolName: "deploy", toolCallId: "c9" }, 10);
  batch({ events: [call, post, pre], settled: [call.seq, post.seq] });
  const end = event("session.end", { outcome: "cancelled", reason: "cancelled by ops" }, 100);
  batch({ events: [end], ledger: [row(end.seq, "notify", "allow", "session.end")], settled: [end.seq] });
  const [chat, run, tool] = emitted;
  expect(chat.name).toBe("chat gpt-4o");
  expect(run).toMatchObject({ name: "invoke_agent worker", spanId: spanIdOf(RUN, 0), start: start.ts, end: end.ts });
  expect(run.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 7, "gen_ai.usage.output_tokens": 3, "gen_ai.usage.cache_read.input_tokens": 1, "gen_ai.usage.cost": 0.5, "hookplane.run.outcome": "cancelled", "gen_ai.request.model": "gpt-4o" });
  expect(run.error).toBeUndefined();
  expect(run.events?.map((e) => e.attributes?.["hookplane.hook.id"])).toEqual(["notify"]);
  expect(tool).toMatchObject({ name: "execute_tool deploy", start: pre.ts, end: end.ts, attributes: { "hookplane.tool.unfinished": true } });
  expect(emitted).toHaveLength(3);
});
