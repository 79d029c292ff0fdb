/**
 * Metrics and OpenTelemetry export: what a scrape needs and where spans go (the OTEL_* names are the SDK's own).
 * One part of CONFIG_SCHEMA (config-schema.ts), in the order the docs list them.
 */
import { PROVIDER_URL, flag, fraction, integer, keyValues, oneOf, text, token, url } from "./config-values";
import type { VariableSpec } from "./variable-spec";

export const TELEMETRY_VARIABLES = {
  HOOKPLANE_METRICS_TOKEN: {
    schema: token(16),
    defaultText: "unset",
    description:
      "the Bearer token Prometheus scrapes `GET /metrics` with (compared in constant time; an admin's API token works too). Unset: only admins can read `/metrics` (docs/operations.md, Metrics)",
    secret: true,
  },
  HOOKPLANE_METRICS_PORT: {
    schema: integer({ min: 1, max: 65535, expected: "a port number from 1 to 65535" }),
    defaultText: "unset",
    description:
      "a worker (`npm run worker`) serves its own `GET /metrics` on this port, to the `HOOKPLANE_METRICS_TOKEN` only (which it needs); a web process serves `/metrics` on `PORT`",
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    schema: url(PROVIDER_URL, "an http(s) URL"),
    defaultText: "unset",
    description:
      "runs are exported as OpenTelemetry traces over OTLP/HTTP to this collector (`/v1/traces` is appended); unset: no export (docs/tracing.md: spans, attributes, backends)",
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    schema: url(PROVIDER_URL, "an http(s) URL"),
    defaultText: "unset",
    description: "the full traces URL, used as given; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`",
  },
  OTEL_EXPORTER_OTLP_PROTOCOL: {
    schema: oneOf(["http/protobuf", "http/json"]),
    default: "http/protobuf",
    description: "OTLP over HTTP as protobuf or JSON (gRPC is not spoken: use the collector's HTTP port, 4318)",
  },
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: {
    schema: oneOf(["http/protobuf", "http/json"]),
    defaultText: "`OTEL_EXPORTER_OTLP_PROTOCOL`",
    description: "the same, for traces only",
  },
  OTEL_EXPORTER_OTLP_HEADERS: {
    schema: keyValues(),
    defaultText: "unset",
    description: "headers of every export request: `key=value,key2=value2`, values percent-encoded (`Authorization=Basic%20…`)",
    secret: true,
  },
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: {
    schema: keyValues(),
    defaultText: "unset",
    description: "the same, for traces only; wins per header",
    secret: true,
  },
  OTEL_EXPORTER_OTLP_TIMEOUT: {
    schema: integer({ min: 1 }),
    default: "10000",
    description: "ms an export request may take",
  },
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: {
    schema: integer({ min: 1 }),
    defaultText: "`OTEL_EXPORTER_OTLP_TIMEOUT`",
    description: "the same, for traces only",
  },
  OTEL_EXPORTER_OTLP_COMPRESSION: {
    schema: oneOf(["none", "gzip"]),
    default: "none",
    description: "`gzip` compresses export requests",
  },
  OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: {
    schema: oneOf(["none", "gzip"]),
    defaultText: "`OTEL_EXPORTER_OTLP_COMPRESSION`",
    description: "the same, for traces only",
  },
  OTEL_SERVICE_NAME: {
    schema: text(),
    defaultText: "`hookplane` (or the `service.name` of `OTEL_RESOURCE_ATTRIBUTES`)",
    description: "`service.name` of the exported spans",
  },
  OTEL_RESOURCE_ATTRIBUTES: {
    schema: keyValues(),
    defaultText: "unset",
    description: "more resource attributes of the exported spans (`deployment.environment=prod`)",
  },
  OTEL_BSP_SCHEDULE_DELAY: {
    schema: integer({ min: 1 }),
    default: "5000",
    description: "trace export: ms between two batches of spans",
  },
  OTEL_BSP_MAX_QUEUE_SIZE: {
    schema: integer({ min: 1 }),
    default: "2048",
    description: "trace export: spans waiting at most (past it, while the collector does not keep up or answer, spans are dropped; runs never wait)",
  },
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: {
    schema: integer({ min: 1 }),
    default: "512",
    description: "trace export: spans per request (at most the queue's size)",
  },
  OTEL_BSP_EXPORT_TIMEOUT: {
    schema: integer({ min: 1 }),
    default: "30000",
    description: "trace export: ms a batch may take, retries included",
  },
  OTEL_SDK_DISABLED: {
    schema: flag(),
    default: "false",
    description: "`true` turns trace export off although an endpoint is set",
  },
  OTEL_TRACES_EXPORTER: {
    schema: oneOf(["otlp", "none"]),
    default: "otlp",
    description: "`none` turns trace export off although an endpoint is set",
  },
  OTEL_TRACES_SAMPLER: {
    schema: oneOf(["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"]),
    default: "parentbased_always_on",
    description:
      "which runs are exported: `traceidratio` keeps the share `OTEL_TRACES_SAMPLER_ARG` of them, decided on the run's id (its trace id), so every span of a run goes or none does, whichever process records it. Hookplane's spans are their traces' roots: a `parentbased_` sampler is its root sampler",
  },
  OTEL_TRACES_SAMPLER_ARG: {
    schema: fraction(),
    default: "1",
    description: "the share of runs a `traceidratio` sampler exports, from 0 to 1",
  },
  HOOKPLANE_OTEL_CAPTURE_CONTENT: {
    schema: flag(),
    default: "0",
    description:
      "`1` puts tool inputs and outputs, prompts and model text on the exported spans (the GenAI conventions' opt-in content); off, spans carry names, tokens, costs and hook decisions only",
  },
} as const satisfies Record<string, VariableSpec>;
