/**
 * A local OTLP/HTTP trace receiver for tests: it takes what an exporter sends to `/v1/traces`
 * (protobuf, decoded with the official opentelemetry-proto definitions in
 * test/fixtures/otlp-proto, or JSON) and keeps the spans it decodes, attributes as plain values,
 * so tests assert on what a collector would see, never on bytes.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import path from "node:path";
import protobuf from "protobufjs";
import { traceExport } from "@/lib/platform/telemetry/trace-export";
import { traceIdOf } from "@/lib/features/runs/telemetry/run-spans";
import { runTraceIdle } from "@/lib/features/runs/telemetry/run-trace-recorder";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, unknown>;
  events: { name: string; timeMs: number; attributes: Record<string, unknown> }[];
  /** OTLP's StatusCode: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
  scope: string;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans: ReceivedSpan[];
  requests: { contentType: string; headers: IncomingHttpHeaders }[];
  /** Spans of one trace (hex id). */
  trace(traceId: string): ReceivedSpan[];
  close(): Promise<void>;
}

const PROTO_ROOT = path.resolve(import.meta.dirname, "fixtures/otlp-proto");
let requestType: protobuf.Type | undefined;

function exportRequestType(): protobuf.Type {
  if (requestType) return requestType;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
  root.loadSync("opentelemetry/proto/collector/trace/v1/trace_service.proto");
  requestType = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
  return requestType;
}

type Json = Record<string, unknown>;

/** An AnyValue (protobuf decoded to an object, or OTLP JSON) as a plain value. */
function anyValue(v: Json | undefined): unknown {
  if (!v) return undefined;
  if ("stringValue" in v) return v.stringValue;
  if ("boolValue" in v) return v.boolValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return Number(v.doubleValue);
  if ("arrayValue" in v) return ((v.arrayValue as Json).values as Json[] | undefined)?.map(anyValue) ?? [];
  if ("kvlistValue" in v) return keyValues((v.kvlistValue as Json).values as Json[]);
  return undefined;
}

function keyValues(list: Json[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list ?? []) out[kv.key as string] = anyValue(kv.value as Json);
  return out;
}

/** Ids are bytes in protobuf and hex in OTLP JSON. */
const hex = (id: unknown) => (typeof id === "string" ? id.toLowerCase() : id ? Buffer.from(id as Uint8Array).toString("hex") : "");
const millis = (nanos: unknown) => Number(BigInt(String(nanos ?? 0)) / 1_000_000n);

function spansOf(request: Json): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (request.resourceSpans as Json[] | undefined) ?? []) {
    const resource = keyValues(((rs.resource as Json | undefined)?.attributes as Json[]) ?? []);
    for (const ss of (rs.scopeSpans as Json[] | undefined) ?? []) {
      const scope = String((ss.scope as Json | undefined)?.name ?? "");
      for (const s of (ss.spans as Json[] | undefined) ?? []) {
        const status = (s.status as Json | undefined) ?? {};
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: String(s.name),
          kind: Number(s.kind ?? 0),
          startMs: millis(s.startTimeUnixNano),
          endMs: millis(s.endTimeUnixNano),
          attributes: keyValues(s.attributes as Json[]),
          events: ((s.events as Json[] | undefined) ?? []).map((e) => ({ name: String(e.name), timeMs: millis(e.timeUnixNano), attributes: keyValues(e.attributes as Json[]) })),
          status: { code: Number(status.code ?? 0), ...(status.message ? { message: String(status.message) } : {}) },
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver["requests"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const contentType = String(req.headers["content-type"] ?? "");
      requests.push({ contentType, headers: req.headers });
      if (req.method !== "POST" || req.url !== "/v1/traces") return res.writeHead(404).end();
      try {
        if (contentType.startsWith("application/x-protobuf")) {
          const type = exportRequestType();
          spans.push(...spansOf(type.toObject(type.decode(body), { longs: String, enums: Number, defaults: false }) as Json));
          // An empty ExportTraceServiceResponse: everything accepted.
          res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
        } else {
          spans.push(...spansOf(JSON.parse(body.toString("utf8")) as Json));
          res.writeHead(200, { "content-type": "application/json" }).end("{}");
        }
      } catch (error) {
        res.writeHead(400, { "content-type": "text/plain" }).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    trace: (traceId) => spans.filter((s) => s.traceId === traceId),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The spans of a run's trace once `count` have arrived, after one more flush (so a duplicate
 * would be there too). Flushes the process's trace export while it waits.
 */
export async function traceOfRun(receiver: OtlpReceiver, runId: string, count: number, timeoutMs = 15_000): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + timeoutMs;
  const traceId = traceIdOf(runId);
  while (receiver.trace(traceId).length < count && Date.now() < deadline) {
    await runTraceIdle();
    await traceExport()?.flush();
    await new Promise((r) => setTimeout(r, 20));
  }
  await runTraceIdle();
  await traceExport()?.flush();
  return receiver.trace(traceId);
}
