/**
 * The process's trace export: finished spans described as plain records go through the
 * OpenTelemetry SDK (a tracer provider, a batch span processor with a bounded queue, the OTLP/HTTP
 * exporter) to any collector. Hookplane builds its spans from what it has stored (the run's
 * events), after the fact, so a span is created and ended at once with the times it carries.
 *
 * Ids are given, not drawn: a run's trace id is its id and its span ids derive from its events,
 * so the spans of one run form one trace whichever process (or restart) recorded them, with no
 * shared state. The provider is never registered as the global one: nothing else in the process
 * (Next's own instrumentation) starts producing spans because export is on.
 *
 * Export never holds up or fails a run: spans queue in memory (dropped past the queue's size)
 * and go out in the background; a collector that does not answer is warned about once, and once
 * more when it answers again.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter as OtlpJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type IdGenerator,
  type ReadableSpan,
  type SpanExporter,
} from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { APP_VERSION } from "../version";
import type { OtelConfig } from "./otel-config";

/** One finished span, ids as lowercase hex (trace 32, span 16 characters). */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: "internal" | "client";
  start: Date;
  end: Date;
  attributes: Attributes;
  events?: { name: string; time: Date; attributes?: Attributes }[];
  /** The span ended in an error (OpenTelemetry status ERROR, with this message). */
  error?: { message: string };
}

export interface TraceExport {
  /** Tool inputs and outputs, prompts and model text may go on spans. */
  readonly captureContent: boolean;
  /** Queues finished spans for export; never throws, never waits. */
  emit(spans: readonly SpanRecord[]): void;
  /** Sends what is queued (bounded by `timeoutMs`); resolves whether or not the collector took it. */
  flush(timeoutMs?: number): Promise<void>;
  shutdown(timeoutMs?: number): Promise<void>;
}

interface Warner {
  warn(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
}

/** The ids of the span being created, handed to the SDK's tracer instead of random ones. */
class GivenIds implements IdGenerator {
  traceId = "";
  spanId = "";
  generateTraceId = () => this.traceId;
  generateSpanId = () => this.spanId;
}

/** The exporter, saying once that the collector cannot be reached (and once that it can again). */
class ReportingExporter implements SpanExporter {
  private failing = false;
  constructor(
    private readonly inner: SpanExporter,
    private readonly log: Warner,
    private readonly url: string,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS && !this.failing) {
        this.failing = true;
        this.log.warn({ url: this.url, err: result.error?.message }, "OpenTelemetry export failed: spans are dropped until the collector answers");
      } else if (result.code === ExportResultCode.SUCCESS && this.failing) {
        this.failing = false;
        this.log.info({ url: this.url }, "OpenTelemetry export works again");
      }
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

type ExporterOptions = NonNullable<ConstructorParameters<typeof OtlpProtobufExporter>[0]>;

const KIND = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT } as const;

export function createTraceExport(config: OtelConfig, log: Warner): TraceExport {
  const options: ExporterOptions = {
    url: config.tracesUrl,
    headers: config.headers,
    timeoutMillis: config.timeoutMs,
    // The exporter's enum has exactly these two values.
    compression: config.compression as ExporterOptions["compression"],
  };
  const exporter = new ReportingExporter(
    config.protocol === "http/json" ? new OtlpJsonExporter(options) : new OtlpProtobufExporter(options),
    log,
    config.tracesUrl,
  );
  const ids = new GivenIds();
  const provider = new TracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({
        [ATTR_SERVICE_VERSION]: APP_VERSION,
        ...config.resourceAttributes,
        [ATTR_SERVICE_NAME]: config.serviceName,
      }),
    ),
    idGenerator: ids,
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        maxQueueSize: config.batch.maxQueueSize,
        maxExportBatchSize: config.batch.maxExportBatchSize,
        scheduledDelayMillis: config.batch.scheduledDelayMs,
        exportTimeoutMillis: config.batch.exportTimeoutMs,
      }),
    ],
  });
  const tracer = provider.getTracer("hookplane", APP_VERSION);
  // Decided here, per span, on the trace id alone: the SDK's own sampler would follow the parent
  // contexts this export makes up for child spans, and those say sampled.
  const ratio = new TraceIdRatioBasedSampler(config.sampleRatio);
  const sampled = (traceId: string) =>
    config.sampleRatio >= 1 || ratio.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
  const bounded = (work: Promise<void>, ms: number) =>
    Promise.race([work.catch(() => {}), new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);

  return {
    captureContent: config.captureContent,
    emit(spans) {
      for (const s of spans) {
        if (!sampled(s.traceId)) continue;
        try {
          ids.traceId = s.traceId;
          ids.spanId = s.spanId;
          const parent = s.parentSpanId
            ? trace.setSpanContext(ROOT_CONTEXT, { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true })
            : ROOT_CONTEXT;
          const span = tracer.startSpan(s.name, { kind: KIND[s.kind], startTime: s.start, attributes: s.attributes }, parent);
          for (const e of s.events ?? []) span.addEvent(e.name, e.attributes, e.time);
          if (s.error) span.setStatus({ code: SpanStatusCode.ERROR, message: s.error.message });
          span.end(s.end);
        } catch (error) {
          log.warn({ err: (error as Error).message, span: s.name }, "a span could not be exported");
        }
      }
    },
    flush: (timeoutMs = 5_000) => bounded(provider.forceFlush(), timeoutMs),
    shutdown: (timeoutMs = 5_000) => bounded(provider.shutdown(), timeoutMs),
  };
}

const KEY = Symbol.for("hookplane.traceExport");
type GlobalWithExport = typeof globalThis & { [KEY]?: TraceExport };

/**
 * The process's trace export, kept on globalThis so Next's bundled route handlers (the bridge)
 * and server.ts's worker share it. Undefined when export is off.
 */
export function traceExport(): TraceExport | undefined {
  return (globalThis as GlobalWithExport)[KEY];
}

export function installTraceExport(value: TraceExport | undefined): void {
  (globalThis as GlobalWithExport)[KEY] = value;
}

/** At start: export on when the configuration says so (a bad value throws, naming its variable). */
export function startTraceExport(config: OtelConfig | undefined, log: Warner): TraceExport | undefined {
  const current = traceExport();
  if (current || !config) return current;
  const started = createTraceExport(config, log);
  installTraceExport(started);
  log.info({ url: config.tracesUrl, protocol: config.protocol, service: config.serviceName }, "OpenTelemetry trace export on");
  return started;
}

/** At shutdown: what is queued goes out (within `timeoutMs`), then export stops. */
export async function stopTraceExport(timeoutMs = 2_000): Promise<void> {
  const current = traceExport();
  installTraceExport(undefined);
  await current?.shutdown(timeoutMs);
}
