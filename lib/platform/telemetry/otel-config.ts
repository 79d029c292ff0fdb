/**
 * Trace export settings, from the standard OpenTelemetry variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/ and the OTLP
 * exporter's) and Hookplane's content switch, as the configuration module parsed and checked them
 * at start (lib/platform/config/config-schema.ts: a bad value stops the start, naming it).
 *
 * Export is off unless an endpoint is set (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, used as given, or
 * OTEL_EXPORTER_OTLP_ENDPOINT, to which `/v1/traces` is appended), and OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none turn it off again. Only OTLP over HTTP is spoken (protobuf by
 * default, JSON on request). A traces-specific variable wins over its general one.
 *
 * OTEL_TRACES_SAMPLER and its ARG come down to one share of runs: a run's spans carry its id as
 * their trace id and Hookplane makes the trace's root, so a parent-based sampler is its root
 * sampler, and the trace-id-ratio decision is the same for every span of a run in any process.
 */
import { getConfig, type ConfigValues } from "@/lib/platform/config/config";

export type OtlpProtocol = "http/protobuf" | "http/json";

export interface OtelConfig {
  tracesUrl: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  compression: "gzip" | "none";
  timeoutMs: number;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  /** Tool inputs and outputs, prompts and model text on spans (the GenAI conventions' opt-in content). */
  captureContent: boolean;
  /** The share of traces (runs) exported, 0 to 1: decided on the trace id. */
  sampleRatio: number;
  batch: { scheduledDelayMs: number; maxQueueSize: number; maxExportBatchSize: number; exportTimeoutMs: number };
}

type OtelVariables = Extract<keyof ConfigValues, `OTEL_${string}` | "HOOKPLANE_OTEL_CAPTURE_CONTENT">;

function sampleRatioOf(sampler: ConfigValues["OTEL_TRACES_SAMPLER"], arg: number): number {
  const root = sampler.replace(/^parentbased_/, "");
  return root === "always_on" ? 1 : root === "always_off" ? 0 : arg;
}

/** The trace export settings, or undefined when export is off. */
export function otelConfigOf(c: Pick<ConfigValues, OtelVariables> = getConfig()): OtelConfig | undefined {
  if (c.OTEL_SDK_DISABLED || c.OTEL_TRACES_EXPORTER === "none") return undefined;
  const tracesUrl = c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (c.OTEL_EXPORTER_OTLP_ENDPOINT && `${c.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`);
  if (!tracesUrl) return undefined;
  const resourceAttributes = c.OTEL_RESOURCE_ATTRIBUTES ?? {};
  return {
    tracesUrl,
    protocol: c.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? c.OTEL_EXPORTER_OTLP_PROTOCOL,
    headers: { ...c.OTEL_EXPORTER_OTLP_HEADERS, ...c.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
    compression: c.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION ?? c.OTEL_EXPORTER_OTLP_COMPRESSION,
    timeoutMs: c.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? c.OTEL_EXPORTER_OTLP_TIMEOUT,
    serviceName: c.OTEL_SERVICE_NAME ?? resourceAttributes["service.name"] ?? "hookplane",
    resourceAttributes,
    captureContent: c.HOOKPLANE_OTEL_CAPTURE_CONTENT,
    sampleRatio: sampleRatioOf(c.OTEL_TRACES_SAMPLER, c.OTEL_TRACES_SAMPLER_ARG),
    batch: {
      scheduledDelayMs: c.OTEL_BSP_SCHEDULE_DELAY,
      maxQueueSize: c.OTEL_BSP_MAX_QUEUE_SIZE,
      maxExportBatchSize: Math.min(c.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, c.OTEL_BSP_MAX_QUEUE_SIZE),
      exportTimeoutMs: c.OTEL_BSP_EXPORT_TIMEOUT,
    },
  };
}
