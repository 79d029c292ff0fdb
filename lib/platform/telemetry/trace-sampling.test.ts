/**
 * Sampling as a collector sees it: the export sends spans to a local OTLP receiver that decodes
 * them. A run's spans share its trace id, so a ratio keeps or drops a run whole, and two exports
 * (two processes recording parts of one run) decide the same for the same trace.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { loadConfig } from "@/lib/platform/config/config";
import { startOtlpReceiver, type OtlpReceiver } from "@/test/otlp-receiver";
import { otelConfigOf } from "./otel-config";
import { createTraceExport, type SpanRecord } from "./trace-export";

const quiet = { warn: () => {}, info: () => {} };
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

/** A run's root span and two children, as the run recorder describes them. */
function runSpans(traceId: string): SpanRecord[] {
  const root = hex(8);
  const at = new Date();
  return [
    { traceId, spanId: root, name: "invoke_agent", kind: "internal", start: at, end: at, attributes: {} },
    { traceId, spanId: hex(8), parentSpanId: root, name: "chat", kind: "client", start: at, end: at, attributes: {} },
    { traceId, spanId: hex(8), parentSpanId: root, name: "execute_tool", kind: "internal", start: at, end: at, attributes: {} },
  ];
}

function exportWith(env: Record<string, string>) {
  const config = otelConfigOf(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "10", ...env }))!;
  return createTraceExport(config, quiet);
}

test("traceidratio keeps about its share of runs, each whole, and another process decides the same", async () => {
  receiver.spans.length = 0;
  const env = { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.3" };
  const first = exportWith(env);
  const second = exportWith(env);
  const traces = Array.from({ length: 400 }, () => hex(16));
  for (const traceId of traces) {
    const [root, ...children] = runSpans(traceId);
    // The root from one process, the children from another: a run resumed elsewhere.
    first.emit([root]);
    second.emit(children);
  }
  await first.shutdown();
  await second.shutdown();

  const kept = traces.filter((id) => receiver.trace(id).length > 0);
  for (const id of kept) expect(receiver.trace(id).map((s) => s.name).sort()).toEqual(["chat", "execute_tool", "invoke_agent"]);
  expect(receiver.spans).toHaveLength(kept.length * 3);
  // 400 draws at 0.3: 120 expected, and outside 80..160 about once in 10^5.
  expect(kept.length).toBeGreaterThan(80);
  expect(kept.length).toBeLessThan(160);
});

test("always_off exports nothing, always_on (the default) everything", async () => {
  receiver.spans.length = 0;
  const off = exportWith({ OTEL_TRACES_SAMPLER: "always_off" });
  const on = exportWith({});
  const offTrace = hex(16);
  const onTrace = hex(16);
  off.emit(runSpans(offTrace));
  on.emit(runSpans(onTrace));
  await off.shutdown();
  await on.shutdown();
  expect(receiver.trace(offTrace)).toEqual([]);
  expect(receiver.trace(onTrace)).toHaveLength(3);
});
