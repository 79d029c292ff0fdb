import { expect, test } from "vitest";
import { loadConfig } from "@/lib/platform/config/config";
import { otelConfigOf } from "./otel-config";

/** The settings a process with this environment (and nothing else set) exports with. */
const otelConfigFromEnv = (env: Record<string, string>) => otelConfigOf(loadConfig(env));

test("off unless an endpoint is set, and off again when the SDK or the traces exporter is switched off", () => {
  expect(otelConfigFromEnv({})).toBeUndefined();
  expect(otelConfigFromEnv({ OTEL_SERVICE_NAME: "x", OTEL_EXPORTER_OTLP_HEADERS: "a=b" })).toBeUndefined();
  expect(otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "" })).toBeUndefined();
  expect(otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" })).toBeUndefined();
  expect(otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "false" })).toBeDefined();
  expect(otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" })).toBeUndefined();
});

test("the defaults: protobuf to <endpoint>/v1/traces as service hookplane, content off, the SDK's batch settings", () => {
  expect(otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })).toEqual({
    tracesUrl: "http://collector:4318/v1/traces",
    protocol: "http/protobuf",
    headers: {},
    compression: "none",
    timeoutMs: 10_000,
    serviceName: "hookplane",
    resourceAttributes: {},
    captureContent: false,
    sampleRatio: 1,
    batch: { scheduledDelayMs: 5_000, maxQueueSize: 2_048, maxExportBatchSize: 512, exportTimeoutMs: 30_000 },
  });
});

test("the traces-specific variables win over the general ones; the traces endpoint is used as given", () => {
  const config = otelConfigFromEnv({
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://cloud.langfuse.com/api/public/otel/v1/traces",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_HEADERS: "authorization=Basic%20abc%3D%3D, x-scope-orgid=team-a",
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-scope-orgid=team-b",
    OTEL_EXPORTER_OTLP_TIMEOUT: "5000",
    OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "2000",
    OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
    OTEL_RESOURCE_ATTRIBUTES: "service.name=from-resource,deployment.environment=prod",
    OTEL_SERVICE_NAME: "hookplane-eu",
    OTEL_BSP_MAX_QUEUE_SIZE: "100",
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "500",
    HOOKPLANE_OTEL_CAPTURE_CONTENT: "true",
  })!;
  expect(config).toMatchObject({
    tracesUrl: "https://cloud.langfuse.com/api/public/otel/v1/traces",
    protocol: "http/json",
    headers: { authorization: "Basic abc==", "x-scope-orgid": "team-b" },
    timeoutMs: 2_000,
    compression: "gzip",
    serviceName: "hookplane-eu",
    resourceAttributes: { "service.name": "from-resource", "deployment.environment": "prod" },
    captureContent: true,
    // A batch is never larger than the queue.
    batch: { maxQueueSize: 100, maxExportBatchSize: 100 },
  });
  expect(otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_RESOURCE_ATTRIBUTES: "service.name=from-resource" })?.serviceName).toBe("from-resource");
});

test.each([
  ["always_on", "0.1", 1],
  ["parentbased_always_on", undefined, 1],
  ["always_off", "0.5", 0],
  ["parentbased_always_off", undefined, 0],
  ["traceidratio", "0.25", 0.25],
  ["parentbased_traceidratio", ".1", 0.1],
  ["traceidratio", undefined, 1],
  ["traceidratio", "0", 0],
])("OTEL_TRACES_SAMPLER=%s with ARG %s exports the share %d of runs", (sampler, arg, ratio) => {
  const env: Record<string, string> = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_SAMPLER: sampler };
  if (arg !== undefined) env.OTEL_TRACES_SAMPLER_ARG = arg;
  expect(otelConfigFromEnv(env)?.sampleRatio).toBe(ratio);
});

test.each([
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, /^OTEL_EXPORTER_OTLP_ENDPOINT: expected an http\(s\) URL, got "collector:4318"/],
  [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "grpc://collector:4317" }, /^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: expected an http\(s\) URL/],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, /^OTEL_EXPORTER_OTLP_PROTOCOL: expected one of "http\/protobuf", "http\/json", got "grpc"/],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_HEADERS: "authorization" }, /^OTEL_EXPORTER_OTLP_HEADERS: expected comma-separated key=value pairs.*not shown/],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_HEADERS: "a=%E0%A4%A" }, /^OTEL_EXPORTER_OTLP_HEADERS: expected comma-separated key=value pairs/],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "zipkin" }, /^OTEL_TRACES_EXPORTER: expected one of "otlp", "none"/],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_BSP_MAX_QUEUE_SIZE: "lots" }, /^OTEL_BSP_MAX_QUEUE_SIZE: expected a positive integer/],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_TIMEOUT: "-1" }, /^OTEL_EXPORTER_OTLP_TIMEOUT: expected a positive integer/],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", HOOKPLANE_OTEL_CAPTURE_CONTENT: "maybe" }, /^HOOKPLANE_OTEL_CAPTURE_CONTENT: expected 1 or 0/],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_SAMPLER: "jaeger_remote" }, /^OTEL_TRACES_SAMPLER: expected one of "always_on"/],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_SAMPLER_ARG: "1.5" }, /^OTEL_TRACES_SAMPLER_ARG: expected a number from 0 to 1, got "1.5"/],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_SAMPLER_ARG: "-0.1" }, /^OTEL_TRACES_SAMPLER_ARG: expected a number from 0 to 1/],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_SAMPLER_ARG: "half" }, /^OTEL_TRACES_SAMPLER_ARG: expected a number from 0 to 1/],
])("a bad value is refused at start, naming its variable (a header's value never shown): %o", (env, message) => {
  expect(() => otelConfigFromEnv(env)).toThrow(message);
});
