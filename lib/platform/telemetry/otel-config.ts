/**
 * Trace export settings, read from the environment in this one function: the standard
 * OpenTelemetry variables (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/
 * and the OTLP exporter's), plus Hookplane's content switch. The schema is zod so it folds into
 * the process's configuration module as it is; a bad value throws an error naming its variable.
 *
 * Export is off unless an endpoint is set (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, used as given, or
 * OTEL_EXPORTER_OTLP_ENDPOINT, to which `/v1/traces` is appended), and OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none turn it off again. Only OTLP over HTTP is spoken (protobuf by
 * default, JSON on request): gRPC is refused at start rather than failing every export.
 */
import { z } from "zod";

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
  batch: { scheduledDelayMs: number; maxQueueSize: number; maxExportBatchSize: number; exportTimeoutMs: number };
}

const flag = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
const count = (fallback: number) => z.coerce.number().int().min(1).max(1_000_000).default(fallback);
const millis = z.coerce.number().int().min(0).max(3_600_000);
const url = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
const protocol = z.enum(["http/protobuf", "http/json", "grpc"]).refine((p) => p !== "grpc", "grpc is not supported: use http/protobuf (the collector's port 4318)");
/** `key=value,key2=value2`, values percent-encoded (the W3C baggage form the spec uses). */
const pairs = z.string().transform((text, ctx) => {
  const out: Record<string, string> = {};
  for (const item of text.split(",")) {
    if (!item.trim()) continue;
    const eq = item.indexOf("=");
    const key = eq > 0 ? item.slice(0, eq).trim() : "";
    if (!key) {
      ctx.addIssue({ code: "custom", message: `"${item.trim()}" is not key=value` });
      return z.NEVER;
    }
    try {
      out[key] = decodeURIComponent(item.slice(eq + 1).trim());
    } catch {
      ctx.addIssue({ code: "custom", message: `the value of ${key} is not percent-encoded correctly` });
      return z.NEVER;
    }
  }
  return out;
});

const otelEnvSchema = z.object({
  OTEL_SDK_DISABLED: flag.optional(),
  OTEL_TRACES_EXPORTER: z
    .string()
    .transform((v) => v.split(",").map((s) => s.trim()))
    .refine((list) => list.every((e) => e === "otlp" || e === "none"), "only otlp (or none) is supported")
    .optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: url.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url.optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol.optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol.optional(),
  OTEL_EXPORTER_OTLP_HEADERS: pairs.optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: pairs.optional(),
  OTEL_EXPORTER_OTLP_COMPRESSION: z.enum(["gzip", "none"]).optional(),
  OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: z.enum(["gzip", "none"]).optional(),
  OTEL_EXPORTER_OTLP_TIMEOUT: millis.default(10_000),
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: millis.optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  OTEL_RESOURCE_ATTRIBUTES: pairs.optional(),
  OTEL_BSP_SCHEDULE_DELAY: millis.default(5_000),
  OTEL_BSP_MAX_QUEUE_SIZE: count(2_048),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: count(512),
  OTEL_BSP_EXPORT_TIMEOUT: millis.default(30_000),
  HOOKPLANE_OTEL_CAPTURE_CONTENT: flag.default(false),
});

/** An empty variable counts as unset, as the OpenTelemetry SDKs read them. */
function present(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(otelEnvSchema.shape)) {
    const value = env[key]?.trim();
    if (value) out[key] = value;
  }
  return out;
}

/** The trace export settings, or undefined when export is off. Throws naming the variable on a bad value. */
export function otelConfigFromEnv(env: Record<string, string | undefined> = process.env): OtelConfig | undefined {
  const parsed = otelEnvSchema.safeParse(present(env));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  if (e.OTEL_SDK_DISABLED || e.OTEL_TRACES_EXPORTER?.includes("none")) return undefined;
  const tracesUrl = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (e.OTEL_EXPORTER_OTLP_ENDPOINT && `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`);
  if (!tracesUrl) return undefined;
  const resourceAttributes = e.OTEL_RESOURCE_ATTRIBUTES ?? {};
  return {
    tracesUrl,
    protocol: (e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf") as OtlpProtocol,
    headers: { ...e.OTEL_EXPORTER_OTLP_HEADERS, ...e.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
    compression: e.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION ?? e.OTEL_EXPORTER_OTLP_COMPRESSION ?? "none",
    timeoutMs: e.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? e.OTEL_EXPORTER_OTLP_TIMEOUT,
    serviceName: e.OTEL_SERVICE_NAME ?? resourceAttributes["service.name"] ?? "hookplane",
    resourceAttributes,
    captureContent: e.HOOKPLANE_OTEL_CAPTURE_CONTENT,
    batch: {
      scheduledDelayMs: e.OTEL_BSP_SCHEDULE_DELAY,
      maxQueueSize: e.OTEL_BSP_MAX_QUEUE_SIZE,
      maxExportBatchSize: Math.min(e.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, e.OTEL_BSP_MAX_QUEUE_SIZE),
      exportTimeoutMs: e.OTEL_BSP_EXPORT_TIMEOUT,
    },
  };
}
