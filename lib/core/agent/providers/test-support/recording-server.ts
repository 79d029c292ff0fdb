/**
 * A local HTTP server for provider tests: it records each request and answers from a queue of
 * canned JSON responses, so the real SDKs are exercised without any network.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach } from "vitest";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface CannedResponse {
  status?: number;
  body: unknown;
}

export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
  respond(...responses: CannedResponse[]): void;
  close(): Promise<void>;
}

export async function startRecordingServer(): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const queue: CannedResponse[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
      });
      const next = queue.shift() ?? { status: 500, body: { error: { message: "no canned response left" } } };
      res.writeHead(next.status ?? 200, { "content-type": "application/json" });
      res.end(JSON.stringify(next.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond: (...responses) => queue.push(...responses),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A fresh recording server for each test of the calling file, closed after it. The handle it
 * returns at once (for a module-level `const`) forwards to the server of the running test.
 */
export function recordingServerPerTest(): RecordingServer {
  let current: RecordingServer | undefined;
  beforeEach(async () => {
    current = await startRecordingServer();
  });
  afterEach(() => current?.close());
  const live = () => {
    if (!current) throw new Error("the recording server runs only inside a test");
    return current;
  };
  return {
    get url() {
      return live().url;
    },
    get requests() {
      return live().requests;
    },
    respond: (...responses) => live().respond(...responses),
    close: () => live().close(),
  };
}
